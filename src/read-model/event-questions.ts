// The event questions (list-v2, overview-v2, activity-v2, stream-v2): stored events themselves, read from the event
// log. An event is in these answers as soon as it is acknowledged; only a visit filter (source, device, browser, os,
// country, region, city: the event's visit's values) needs what the projector derives, so only then do list, type
// counts and activity wait (bounded) for it, and only events it has reached are looked at. Bots never count;
// internal traffic only when the selection asks for it.
import type { Answer, LogPosition, ReadScope, Selection } from './questions.ts';
import type { ReportFilters, ReportRange } from '../vocabulary/report-filters.ts';

/** One stored event as an event list shows it (no user agent, no user id: they may hold personal data). */
export interface ListedEvent {
  /** Where it is in the log: ingest order, what an event list's cursor resumes after. */
  position: LogPosition;
  siteId: string;
  id: string;
  type: string;
  /** The event's time and its receive time, epoch ms. */
  tsMs: number;
  receivedAtMs: number;
  anonId: string;
  path: string | null;
  /** The event's own source (its referrer's site, 'direct', or a campaign's utm_source). */
  source: string;
  country: string | null;
  region: string | null;
  city: string | null;
  browser: string | null;
  os: string | null;
  deviceType: 'desktop' | 'mobile' | 'tablet' | 'other' | null;
  /** The JSON text received, as stored: url, referrer and props are read from it (src/event-store/wire-fields.ts). */
  raw: string;
}

export interface EventListQuestion extends Selection {
  /**
   * Only events past this position (the last one a previous page showed: after it in ingest order, before it newest
   * first); without it, from the range's first event (newest first: its last).
   */
  afterPosition?: LogPosition;
  /** Newest first (descending positions) instead of ingest order. */
  newestFirst?: boolean;
  limit: number;
}

export interface EventListPage {
  /** The selection's events whose time is in the range, in ingest order or newest first (sites interleaved by position), at most limit. */
  events: ListedEvent[];
  /** Events follow the last one given. */
  more: boolean;
}

export interface EventTypeCounts {
  /** Every event type with an event in the selection: most events first, then type (code-unit order). */
  types: { type: string; count: number }[];
}

/** A window cut into equal buckets: [startMs, endMs), bucket i holds startMs + i·bucketMs <= ts < startMs + (i+1)·bucketMs. */
export interface ActivityWindow {
  startMs: number;
  endMs: number;
  bucketMs: number;
}

export interface PathActivityQuestion extends Omit<Selection, 'range'> {
  window: ActivityWindow;
  /** Events count from this time on (>= window.startMs: a range may clip the window's start). */
  countFromMs: number;
  limit: number;
}

export interface PathActivity {
  /**
   * The paths with an event in the window, most events first, then path (code-unit order), at most limit; each
   * with its events by bucket, oldest first, every bucket of the window (zeros included).
   */
  paths: { path: string; total: number; buckets: number[] }[];
  /** More paths had events. */
  more: boolean;
}

/** What a tail of one site's log selects (stream-v2's filters). */
export interface EventTailQuestion {
  siteId: string;
  /** Only events after this position. */
  afterPosition: LogPosition;
  /** Only events of this type, or of this visitor; null for all. */
  type: string | null;
  anonId: string | null;
  /** Only events whose time is in this range, if given. */
  range: ReportRange | undefined;
  filters: ReportFilters;
  withInternal: boolean;
  limit: number;
}

/**
 * Not an Answer: a tail reads the log as far as it is stored, never waits and derives nothing; its position is its
 * freshness.
 */
export interface EventTail {
  /** The matching events after afterPosition, in ingest order, at most limit. */
  events: ListedEvent[];
  /**
   * How far the log was looked at: when fewer than limit events came back, every matching event up to this position
   * is in events, so the next question may start after it; never below afterPosition. With a visit filter only
   * events the projector has reached are looked at (an event's visit must exist first): it stops at its position.
   */
  throughPosition: LogPosition;
}

/** A scope's traffic in a window of event time [startMs, endMs) (the alerts' last hour). */
export interface VisitorsInWindowQuestion {
  scope: ReadScope;
  startMs: number;
  endMs: number;
  withInternal: boolean;
}

export interface EventQuestions {
  /**
   * One page of the selection's events in ingest order.
   * @example const page = await readModel.listEvents({ ...selection, afterPosition: lastShown?.position, limit: 50 });
   */
  listEvents(question: EventListQuestion): Promise<Answer<EventListPage>>;
  /**
   * The selection's events counted by type (every type: the total is their sum).
   * @example const { types } = await readModel.eventTypeCounts(selection);
   */
  eventTypeCounts(question: Selection): Promise<Answer<EventTypeCounts>>;
  /**
   * The events of a window by path and bucket, for the paths with the most events.
   * @example await readModel.pathActivity({ scope, filters: {}, withInternal: false, window: { startMs, endMs, bucketMs: 300_000 }, countFromMs: startMs, limit: 10 })
   */
  pathActivity(question: PathActivityQuestion): Promise<Answer<PathActivity>>;
  /**
   * The next events of one site's log after a position (a live tail reads on from throughPosition after each commit).
   * @example const tail = await readModel.eventsAfter({ siteId, afterPosition, type: null, anonId: null, range: undefined, filters: {}, withInternal: false, limit: 500 });
   */
  eventsAfter(question: EventTailQuestion): Promise<EventTail>;
  /**
   * The position of the newest stored event of any site (0 when the log is empty): where a tail starts.
   * @example const start = await readModel.newestPosition();
   */
  newestPosition(): Promise<LogPosition>;
  /**
   * Distinct visitors (anon_ids) with an event in the window, bots never counted; read from the event log, so it
   * never waits for the projector.
   * @example const { visitors } = await readModel.visitorsInWindow({ scope, startMs: now - 3_600_000, endMs: now, withInternal: false });
   */
  visitorsInWindow(question: VisitorsInWindowQuestion): Promise<{ visitors: number }>;
}
