// The page sequences of the visits journeys and page flow count: the visits that start in the range and pass the
// filters, each as its pageview paths in time order with consecutive repeats collapsed (CONTRACT section 10). The
// visits are cut from the event log (CONTRACT section 4: a 30-minute gap ends one) rather than read from the stored
// visits, whose table has no index by time: one scan of the range through (site_id, ts) does it, starting 30
// minutes before the range (a visit whose first event in the scan is later than that truly starts there) and ending a
// day after it (a visit still going then is followed through the visitor index).
import type { Db } from '../../db/open.ts';
import { listVisitorWindowEvents } from '../../projector/queries/visitor-events.ts';
import { listAnonIdsOfVisitorNumbers } from '../../projector/queries/visitor-number-rows.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { visitFilterColumns } from '../../vocabulary/report-filters.ts';
import { sessionGapMs } from '../../vocabulary/visit-rule.ts';
import type { Selection } from '../questions.ts';
import { internalFlag, listVisitPageRows, pageviewFlag, passesFlag, type VisitPageScan } from './queries/visit-page-rows.ts';

/** The visits, each a visitor and its collapsed sequence of path ids (indexes into `paths`). */
export interface VisitSequences {
  paths: string[];
  /** Visit i's visitor number (one anon_id; shared by the sites of a workspace). */
  visitors: number[];
  sequences: number[][];
}

/** One visitor's events of one traffic kind, in (ts, seq) order, as parallel columns. */
interface VisitorEvents {
  ts: number[];
  flags: number[];
  paths: (string | null)[];
}

function filtersOf(selection: Selection): VisitPageScan['filters'] {
  const filters: { column: VisitPageScan['filters'][number]['column']; values: readonly string[] }[] = [];
  for (const [name, column] of Object.entries(visitFilterColumns)) {
    const values = selection.filters[name as keyof typeof visitFilterColumns];
    if (values) filters.push({ column, values });
  }
  return filters;
}

/** A visit still going at the scan's end (rare: a day of activity without a 30-minute gap): its later events. */
function followVisitor(db: Db, siteId: string, anonId: string, events: VisitorEvents, scanEndMs: number, maxSeq: number, internal: number): void {
  for (let highest = scanEndMs; events.ts[events.ts.length - 1]! + sessionGapMs > highest; ) {
    const end = events.ts[events.ts.length - 1]! + sessionGapMs;
    const later = listVisitorWindowEvents(db, { site_id: siteId, anon_id: anonId, start_ms: highest, end_ms: end, with_internal: internal, max_seq: maxSeq })
      .filter((row) => row.is_internal === internal)
      .sort((a, b) => a.ts - b.ts || a.seq - b.seq);
    highest = end;
    if (later.length === 0) break;
    for (const row of later) {
      events.ts.push(row.ts);
      // Only the first event's filter test matters, and this one is never first.
      events.flags.push(internal * internalFlag + (row.type === 'pageview' ? pageviewFlag : 0));
      events.paths.push(row.type === 'pageview' ? row.path : null);
    }
  }
}

/**
 * Every visit of the scope that starts in the range, passes the visit filters (its first event's values) and the
 * path filter (a pageview of one of the paths), and has a pageview. Call inside one snapshot.
 * @example readVisitSequences(db, selection, 120).sequences.length
 */
export function readVisitSequences(db: Db, selection: Selection, maxSeq: number): VisitSequences {
  const startMs = selection.range.fromDay * dayMs;
  const endMs = (selection.range.toDay + 1) * dayMs;
  const scanEndMs = endMs + dayMs;
  const pathIds = new Map<string, number>();
  const result: VisitSequences = { paths: [], visitors: [], sequences: [] };
  const pathFilter = selection.filters.path ? new Set(selection.filters.path) : null;
  const idOf = (path: string) => {
    let id = pathIds.get(path);
    if (id === undefined) {
      id = result.paths.length;
      pathIds.set(path, id);
      result.paths.push(path);
    }
    return id;
  };
  const filters = filtersOf(selection);
  for (const siteId of selection.scope.siteIds) {
    const rows = listVisitPageRows(db, { site_id: siteId, start_ms: startMs - sessionGapMs, end_ms: scanEndMs, max_seq: maxSeq, with_internal: selection.withInternal ? 1 : 0, filters });
    // Internal traffic has visits of its own: key = vid × 2 + internal.
    const byVisitor = new Map<number, VisitorEvents>();
    for (const [vid, ts, flags, path] of rows) {
      const key = vid * 2 + (flags & internalFlag ? 1 : 0);
      let events = byVisitor.get(key);
      if (!events) byVisitor.set(key, (events = { ts: [], flags: [], paths: [] }));
      events.ts.push(ts);
      events.flags.push(flags);
      events.paths.push(path);
    }
    const following: [number, VisitorEvents][] = [];
    for (const [key, events] of byVisitor) if (events.ts[events.ts.length - 1]! + sessionGapMs > scanEndMs) following.push([key, events]);
    if (following.length > 0) {
      const anonIds = listAnonIdsOfVisitorNumbers(db, [siteId], following.map(([key]) => Math.floor(key / 2)));
      for (const [key, events] of following) followVisitor(db, siteId, anonIds.get(Math.floor(key / 2))!, events, scanEndMs, maxSeq, key % 2);
    }
    for (const [key, events] of byVisitor) {
      const vid = Math.floor(key / 2);
      let visitStart = 0;
      for (let index = 1; index <= events.ts.length; index++) {
        if (index < events.ts.length && events.ts[index]! - events.ts[index - 1]! < sessionGapMs) continue;
        // The visit is events [visitStart, index).
        const firstTs = events.ts[visitStart]!;
        if (firstTs >= startMs && firstTs < endMs && (events.flags[visitStart]! & passesFlag) !== 0) {
          const sequence: number[] = [];
          let passesPath = pathFilter === null;
          for (let event = visitStart; event < index; event++) {
            const path = events.paths[event];
            if ((events.flags[event]! & pageviewFlag) === 0 || path === null || path === undefined) continue;
            if (!passesPath && pathFilter!.has(path)) passesPath = true;
            const id = idOf(path);
            if (sequence[sequence.length - 1] !== id) sequence.push(id);
          }
          if (sequence.length > 0 && passesPath) {
            result.visitors.push(vid);
            result.sequences.push(sequence);
          }
        }
        visitStart = index;
      }
    }
  }
  return result;
}
