// The words every question to the read model shares: who is asked about (a scope of sites), when (a range of UTC
// days), which visits and events (filters), and how fresh and complete an answer is. Written in the questions'
// terms, never a storage engine's: an implementation over SQLite and one over ClickHouse take and give the same.
import type { ReportFilters, ReportRange } from '../vocabulary/report-filters.ts';

/** The sites a question is about: one site, or every site of a workspace (scope=all-sites). */
export interface ReadScope {
  siteIds: readonly string[];
  /** The workspace of every site in siteIds: an anon_id is one visitor across them. */
  workspaceId: string;
}

/** What selects the visits and events a question counts (the common report parameters). */
export interface Selection {
  scope: ReadScope;
  range: ReportRange;
  filters: ReportFilters;
  /** Internal traffic counts too (internal=include); bots never count. */
  withInternal: boolean;
}

/** A position in the event log: every event stored with a sequence number up to it. */
export type LogPosition = number;

/** How fresh an answer is; every answer carries one. */
export interface Freshness {
  /** Derived figures count every event up to this position of the log. */
  position: LogPosition;
  /** Receive time (epoch ms) of the scope's newest stored event, or null. */
  watermarkMs: number | null;
  /** Receive time (epoch ms) of the scope's newest event the derived figures count, or null. */
  projectedThroughMs: number | null;
  /**
   * False when the answer needed derived data and the bounded wait for it ran out before every event stored before
   * the question was counted: the answer is as of `position`.
   */
  caughtUp: boolean;
  /** The first day whose raw events are all kept (a site's retention period removed older ones), if any was removed. */
  rawEventsFromDay: number | undefined;
}

/**
 * Where figures came from: derived rollups, raw events when no rollup carries the filters together (a fallback
 * with a warning), or the event log read directly by design (event lists, props).
 */
export type ComputedFrom = 'rollups' | 'events' | 'event_log';

/** Every answer: its figures, with how fresh they are and where they came from. */
export type Answer<Figures> = Figures & { freshness: Freshness; computedFrom: ComputedFrom };
