// Visits computed from scratch from raw events, exactly as CONTRACT section 4 defines them: the fallback for
// filter combinations no rollup carries, and the correction of a paged report back to its first page's watermark.
import type { Db } from '../../db/open.ts';
import { sessionGapMs } from '../../vocabulary/visit-rule.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { listWindowEvents, type RawEventRow } from '../../event-store/queries/raw-window-events.ts';
import { listVisitorWindowEvents } from '../../projector/queries/visitor-events.ts';
import { iterateWindowEvents, type StreamedEventRow } from './queries/raw-window-stream.ts';

export interface RawVisit {
  site_id: string;
  anon_id: string;
  /**
   * The visitor's number (report_visitors.vid, shared by a workspace's sites) where the reader has it: the visitor
   * sets count it instead of anon_id (narrow-visits.ts sets it; every visit of one read has it, or none does).
   */
  visitor_number?: number;
  is_internal: 0 | 1;
  /** In (ts, seq) order. */
  events: RawEventRow[];
  start_ts: number;
  end_ts: number;
  /** The first event: the visit's source, campaign, device… and entry page. */
  entry: RawEventRow;
  /** The last pageview, if any. */
  exit: RawEventRow | null;
}

export interface RawVisitsInput {
  siteIds: readonly string[];
  fromDay: number;
  toDay: number;
  withInternal: boolean;
  /** Only events stored up to this seq (the watermark of a paged report). */
  maxSeq: number;
  /** Only these visitors (site → anon_ids); all visitors with events in the range when absent. */
  visitors?: Map<string, string[]>;
}

const byTime = (a: RawEventRow, b: RawEventRow) => a.ts - b.ts || a.seq - b.seq;

/** Cuts one visitor's events (one traffic kind, in order) where the gap reaches 30 minutes. */
function toVisits(events: RawEventRow[]): RawVisit[] {
  const visits: RawVisit[] = [];
  let current: RawEventRow[] = [];
  const close = () => {
    if (current.length === 0) return;
    const pageviews = current.filter((event) => event.type === 'pageview');
    const first = current[0]!;
    visits.push({
      site_id: first.site_id,
      anon_id: first.anon_id,
      is_internal: first.is_internal,
      events: current,
      start_ts: first.ts,
      end_ts: current[current.length - 1]!.ts,
      entry: first,
      exit: pageviews[pageviews.length - 1] ?? null,
    });
    current = [];
  };
  for (const event of events) {
    if (current.length > 0 && event.ts - current[current.length - 1]!.ts >= sessionGapMs) close();
    current.push(event);
  }
  close();
  return visits;
}

/**
 * Loads the events around the range, extends each visitor's events backward and forward while a visit may go on
 * beyond the window, and returns the visits that overlap the range.
 */
export function loadRawVisits(db: Db, input: RawVisitsInput): RawVisit[] {
  const startMs = input.fromDay * dayMs;
  const endMs = (input.toDay + 1) * dayMs;
  const window = { start_ms: startMs - dayMs, end_ms: endMs + dayMs, with_internal: input.withInternal ? 1 : 0, max_seq: input.maxSeq };
  const visits: RawVisit[] = [];
  for (const siteId of input.siteIds) {
    const groups = new Map<string, RawEventRow[]>();
    const rows = input.visitors
      ? (input.visitors.get(siteId) ?? []).flatMap((anonId) => listVisitorWindowEvents(db, { ...window, site_id: siteId, anon_id: anonId }))
      : listWindowEvents(db, { ...window, site_id: siteId });
    for (const row of rows) {
      const key = `${row.is_internal}|${row.anon_id}`;
      const group = groups.get(key);
      if (group) group.push(row);
      else groups.set(key, [row]);
    }
    for (const group of groups.values()) {
      group.sort(byTime);
      extendGroup(db, group, siteId, window);
      for (const visit of toVisits(group)) if (visit.start_ts < endMs && visit.end_ts >= startMs) visits.push(visit);
    }
  }
  return visits;
}

/** A visit touching the window's edge may continue beyond it: fetch the visitor's events until a 30-minute gap. */
function extendGroup(db: Db, group: RawEventRow[], siteId: string, window: { start_ms: number; end_ms: number; with_internal: number; max_seq: number }): void {
  const first = group[0]!;
  const sameKind = (row: RawEventRow) => row.is_internal === first.is_internal;
  const params = { ...window, site_id: siteId, anon_id: first.anon_id };
  for (let lowest = window.start_ms; group[0]!.ts - sessionGapMs < lowest; ) {
    const earlier = listVisitorWindowEvents(db, { ...params, start_ms: group[0]!.ts - sessionGapMs, end_ms: lowest }).filter(sameKind);
    lowest = group[0]!.ts - sessionGapMs;
    if (earlier.length === 0) break;
    group.unshift(...earlier.sort(byTime));
  }
  for (let highest = window.end_ms; group[group.length - 1]!.ts + sessionGapMs > highest; ) {
    const later = listVisitorWindowEvents(db, { ...params, start_ms: highest, end_ms: group[group.length - 1]!.ts + sessionGapMs }).filter(sameKind);
    highest = group[group.length - 1]!.ts + sessionGapMs;
    if (later.length === 0) break;
    group.push(...later.sort(byTime));
  }
}

/**
 * The visits as they were at `untilMs`: events from then on left out, and a visit with none before it gone (a
 * partial period's comparison counts the previous period only as far as the current one has run).
 */
export function visitsBefore(visits: readonly RawVisit[], untilMs: number): RawVisit[] {
  const cut: RawVisit[] = [];
  for (const visit of visits) {
    const before = visitBefore(visit, untilMs);
    if (before) cut.push(before);
  }
  return cut;
}

/** One visit as it was at `untilMs` (visitsBefore's rule), or null when it had not started. */
export function visitBefore(visit: RawVisit, untilMs: number): RawVisit | null {
  if (visit.end_ts < untilMs) return visit;
  const events = visit.events.filter((event) => event.ts < untilMs);
  if (events.length === 0) return null;
  const pageviews = events.filter((event) => event.type === 'pageview');
  return { ...visit, events, end_ts: events[events.length - 1]!.ts, exit: pageviews[pageviews.length - 1] ?? null };
}

/**
 * The same visits as loadRawVisits (without a visitor restriction), handed to `onVisit` one at a time as the window's
 * rows go by in time order, so memory holds the visits still open (their visitor seen in the last 30 minutes), never
 * the whole window: a month of a 10M-event site is 750,000 rows, whose objects a load held all at once (and which
 * the server's heap could not). A visit touching the window's edges may continue beyond it: those few are extended
 * after the iteration, when the connection is free for the visitor's other events.
 * A visit's `anon_id` is its visitor's identity in the scope: `#` and the visitor number where the projector gave one
 * (the same number on every site of a workspace), else the anon_id; `query` is null unless withQuery.
 */
export function streamRawVisits(db: Db, input: Omit<RawVisitsInput, 'visitors'> & { withQuery?: boolean }, onVisit: (visit: RawVisit) => void): void {
  const startMs = input.fromDay * dayMs;
  const endMs = (input.toDay + 1) * dayMs;
  const window = { start_ms: startMs - dayMs, end_ms: endMs + dayMs, with_internal: input.withInternal ? 1 : 0, max_seq: input.maxSeq };
  const edges = { inner_start_ms: window.start_ms + sessionGapMs, inner_end_ms: window.end_ms - sessionGapMs };
  const emit = (identity: string, events: RawEventRow[]) => {
    for (const visit of toVisits(events)) if (visit.start_ts < endMs && visit.end_ts >= startMs) onVisit({ ...visit, anon_id: identity });
  };
  for (const siteId of input.siteIds) {
    // Keyed by visitor and traffic kind: a number (the visitor number, negative for internal traffic) where the row
    // has one, which costs no string per row.
    const open = new Map<number | string, { first: StreamedEventRow; events: StreamedEventRow[] }>();
    const atEdges: { first: StreamedEventRow; events: StreamedEventRow[] }[] = [];
    const identityOf = (row: StreamedEventRow) => (row.vid !== null ? `#${row.vid}` : row.anon_id!);
    const close = (visit: { first: StreamedEventRow; events: StreamedEventRow[] }) => {
      const { events } = visit;
      if (events[0]!.ts < edges.inner_start_ms || events[events.length - 1]!.ts >= edges.inner_end_ms) atEdges.push(visit);
      else emit(identityOf(visit.first), events as RawEventRow[]);
    };
    let sweepAt = -Infinity;
    for (const row of iterateWindowEvents(db, { ...window, ...edges, site_id: siteId }, input.withQuery ?? false)) {
      const key = row.vid !== null ? (row.is_internal ? -1 - row.vid : row.vid) : `${row.is_internal}|${row.anon_id}`;
      const current = open.get(key);
      if (current && row.ts - current.events[current.events.length - 1]!.ts < sessionGapMs) current.events.push(row);
      else {
        if (current) close(current);
        open.set(key, { first: row, events: [row] });
      }
      // Now and then, the visits whose visitor has been away 30 minutes are over: closed and let go.
      if (row.ts >= sweepAt) {
        for (const [openKey, visit] of open) {
          if (row.ts - visit.events[visit.events.length - 1]!.ts >= sessionGapMs) {
            close(visit);
            open.delete(openKey);
          }
        }
        sweepAt = row.ts + sessionGapMs / 6;
      }
    }
    for (const visit of open.values()) close(visit);
    for (const { first, events } of atEdges) {
      const identity = identityOf(first);
      // A row near an edge carries its anon_id: the visitor's other events are found by it.
      const anonId = events.find((event) => event.anon_id !== null)!.anon_id!;
      const group = events.map((event) => ({ ...event, anon_id: anonId })) as RawEventRow[];
      extendGroup(db, group, siteId, window);
      emit(identity, group);
    }
  }
}
