// The owner of visit_sequences (schema versions 30 to 32): one row per visit, its pages as packed path ids, its visit
// filters' values and campaign (its first kept event's) as value ids, and every kept event packed
// (visit-events-pack.ts), so journeys and page flow read one narrow row per visit instead of cutting the range's
// events into visits, also with a visit filter (docs/reports.md, "Journeys and page flow"), and the dashboard's raw
// pass reads the rows in place of the raw events (docs/reports.md, "Narrow visits"; schema 30 and 31 kept rows only
// for visits with a pageview: journeys skip those without). Exactness is kept by one rule: whenever a visit changes,
// its row is rebuilt from its events, never patched. A visit's row is replaced by deleting the visitor's rows that
// start within the visit's span (a visit only ever grows or merges with neighbours, and both old starts lie inside the
// new span) and writing the row its kept events give now. Every path that changes visits calls in here:
// - a projector batch (writeVisitSequences, a batch subscriber: in the batch's transaction, after its visits are
//   written), for each visit holding one of the batch's events: a visit that grew, or merged two, or a new one (the
//   batch hands these over with their visitor numbers and its events in them: nothing is read again for them);
// - forgetVisitor (GDPR delete, import delete): the visitor's rows go with its visits;
// - the retention purge: the rows of the visits it deletes go, the visit it cuts at the first kept day is rebuilt
//   from what remains (its row then starts at its first kept event, as a recomputation over the events would);
// - a site's deletion drops its rows, and the reconciliation (queries/all-projected.ts) all of them, with the visits;
// - the upgrade: a database that had projected events fills the table from its stored visits at the first start,
//   before the projector (backfillVisitSequences), a chunk per transaction with its cursor, so a crash resumes it;
//   the rows stored before schema 31 get their filter values the same way (backfillVisitAttributes), from the stored
//   visit (its attributes are its first event's) or, for a visit the purge cut, by rebuilding the row; and every
//   visit's row is rebuilt once more for schema 32 (backfillVisitEvents: its events and campaign).
// A visit a day long or longer raises its site's visit_sequences_longest (never lowered: a bound), how far before a
// range the narrow read looks for visits reaching into it.
import type { Db } from '../db/open.ts';
import type { LoggedEvent } from '../event-store/stored-event.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { campaignKey, Dim } from '../vocabulary/dimensions.ts';
import { dayMs } from '../vocabulary/periods.ts';
import type { BatchSubscriber } from './project-batch.ts';
import { readProjectorPosition } from './queries/projector-state.ts';
import { findOrInsertValueId } from './queries/value-rows.ts';
import {
  advanceAttributesBackfill,
  advanceBackfill,
  type AttributeIds,
  type AttributeValues,
  deleteVisitSequencesInSpan,
  deleteVisitSequencesOfSite,
  findEventAttributes,
  finishAttributesBackfill,
  finishBackfill,
  insertVisitSequence,
  listSpanEvents,
  listStartsInSpan,
  listVisitsAfter,
  listVisitsStartedBefore,
  readAttributesBackfillState,
  readBackfillState,
  setVisitSequenceAttributes,
  type BackfillState,
  advanceEventsBackfill,
  finishEventsBackfill,
  raiseLongestVisit,
  readEventsBackfillState,
  type SpanEvent,
} from './queries/visit-sequence-rows.ts';
import { type PackedEvent, packVisitEvents } from './visit-events-pack.ts';
import type { VisitRow } from './queries/visit-rows.ts';
import { findVisitorNumber } from './queries/visitor-number-rows.ts';

/**
 * A visit this long or longer raises its site's visit_sequences_longest: a read of a range looks that far back for
 * visits reaching into it (a day at least, so shorter visits cost no write).
 */
export const longVisitMs = dayMs;

/** Path ids as unsigned LEB128: 1 byte below 128 paths, 2 below 16,384. */
export function packPages(ids: readonly number[]): Buffer {
  const bytes: number[] = [];
  for (let id of ids) {
    while (id >= 0x80) {
      bytes.push((id & 0x7f) | 0x80);
      id = Math.floor(id / 0x80);
    }
    bytes.push(id);
  }
  return Buffer.from(bytes);
}

/** A visit's row key: internal traffic has visits of its own. */
export const visitorOf = (vid: number, isInternal: number) => vid * 2 + isInternal;

/** Value → id, per site and dimension, for one run of rebuilds (the rollups' dictionary, report_values). */
class ValueIds {
  // Nested maps, not one map of joined keys: a key string per path cost the batch subscriber more than its lookups.
  private readonly bySite = new Map<string, Map<Dim, Map<string, number>>>();
  constructor(private readonly db: Db) {}
  of(siteId: string, dim: Dim, value: string): number {
    let byDim = this.bySite.get(siteId);
    if (!byDim) this.bySite.set(siteId, (byDim = new Map()));
    let ids = byDim.get(dim);
    if (!ids) byDim.set(dim, (ids = new Map()));
    let id = ids.get(value);
    if (id === undefined) ids.set(value, (id = findOrInsertValueId(this.db, siteId, dim, value)));
    return id;
  }
  /** A visit's filter values as ids (null stays null: the visit is in no row of that filter). */
  attributes(siteId: string, values: AttributeValues): AttributeIds {
    const idOf = (dim: Dim, value: string | null) => (value === null ? null : this.of(siteId, dim, value));
    return {
      source_id: idOf(Dim.source, values.source),
      device_id: idOf(Dim.device, values.device_type),
      browser_id: idOf(Dim.browser, values.browser),
      os_id: idOf(Dim.os, values.os),
      country_id: idOf(Dim.country, values.country),
      region_id: idOf(Dim.region, values.region),
      city_id: idOf(Dim.city, values.city),
    };
  }
}

/** An event as a rebuild reads it: from a batch (LoggedEvent) or from the visitor's span (SpanEvent). */
type VisitEvent = Pick<SpanEvent, 'ts' | 'seq' | 'type' | 'path' | 'revenue_minor' | 'revenue_currency'>;

/**
 * Replaces the rows within a stored visit's span by the row its kept events (up to `maxSeq`) give now: `allEvents`
 * when the caller holds every one of them in (ts, seq) order (a batch's new visit), else those stored in its span.
 * Every visit with a kept event has a row (schema 32: its pages empty without a pageview), holding its events packed.
 * The filter values and campaign are the first kept event's: the stored visit's, unless its first event is gone (a
 * visit the purge cut keeps its stored start and attributes; a recomputation over the events starts it at its first
 * kept event).
 */
function rebuildVisit(db: Db, visit: VisitRow, vid: number, maxSeq: number, valueIds: ValueIds, allEvents?: readonly LoggedEvent[]): void {
  const visitor = visitorOf(vid, visit.is_internal);
  deleteVisitSequencesInSpan(db, { site_id: visit.site_id, visitor, from_ts: visit.start_ts, to_ts: visit.end_ts });
  let events: readonly VisitEvent[];
  let values: AttributeValues;
  if (allEvents) {
    // All of its events: the first is its start, and its values are the stored visit's.
    events = allEvents;
    values = visit;
  } else {
    const spanEvents = listSpanEvents(db, { site_id: visit.site_id, vid, is_internal: visit.is_internal, from_ts: visit.start_ts, to_ts: visit.end_ts, max_seq: maxSeq });
    if (spanEvents.length === 0) return;
    events = spanEvents;
    values = spanEvents[0]!.seq === visit.entry_seq ? visit : findEventAttributes(db, spanEvents[0]!.seq);
  }
  if (events.length === 0) return;
  const siteId = visit.site_id;
  const ids: number[] = [];
  const packed: PackedEvent[] = [];
  for (const event of events) {
    const pathId = event.path === null ? null : valueIds.of(siteId, Dim.path, event.path);
    if (event.type === 'pageview' && pathId !== null && ids[ids.length - 1] !== pathId) ids.push(pathId);
    packed.push({ ts: event.ts, seq: event.seq, typeId: valueIds.of(siteId, Dim.type, event.type), pathId, revenueMinor: event.revenue_minor, revenueCurrency: event.revenue_currency });
  }
  const startTs = events[0]!.ts;
  const spanMs = events[events.length - 1]!.ts - startTs;
  if (spanMs >= longVisitMs) raiseLongestVisit(db, siteId, spanMs);
  const campaign = campaignKey(values.utm_source, values.utm_medium, values.utm_campaign);
  insertVisitSequence(db, {
    site_id: siteId,
    start_ts: startTs,
    visitor,
    pages: packPages(ids),
    events: packVisitEvents(startTs, packed),
    campaign_id: campaign === null ? null : valueIds.of(siteId, Dim.campaign, campaign),
    ...valueIds.attributes(siteId, values),
  });
}

/**
 * The batch subscriber: every visit holding one of the batch's (non-bot) events is rebuilt, after the batch wrote its
 * visits, from the rows and visitor numbers the batch hands over. A visit made only of the batch's events (the common
 * case) is built from them; one that grew from stored events reads its span. A visit a merge removed lies inside the
 * span of the visit it joined, so its row goes with that rebuild.
 */
export const writeVisitSequences: BatchSubscriber = (db, events, _now, visits) => {
  if (visits.changed.length === 0) return;
  const maxSeq = events[events.length - 1]!.seq;
  const valueIds = new ValueIds(db);
  for (const { visit, vid, events: ownEvents, grewFromStored } of visits.changed) rebuildVisit(db, visit, vid, maxSeq, valueIds, grewFromStored ? undefined : ownEvents);
};

/** A visitor's rows, with its visits (forgetVisitor, before it deletes them). */
export function forgetVisitSequences(db: Db, vid: number, visits: readonly VisitRow[]): void {
  for (const visit of visits) {
    deleteVisitSequencesInSpan(db, { site_id: visit.site_id, visitor: visitorOf(vid, visit.is_internal), from_ts: visit.start_ts, to_ts: visit.end_ts });
  }
}

/** What one retention purge batch does to the rows of its visitors: taken before it deletes, applied after. */
export interface PurgedSequences {
  finish(): void;
}

/**
 * Call before the purge batch deletes the visits that ended before `beforeMs` and the expired events of `anonIds`;
 * call finish() after: the rows of the deleted visits go, and a visit cut at `beforeMs` is rebuilt from what is left.
 */
export function purgeVisitSequences(db: Db, siteId: string, anonIds: Iterable<string>, beforeMs: number): PurgedSequences {
  const touched: { visit: VisitRow; vid: number }[] = [];
  for (const anonId of anonIds) {
    const vid = findVisitorNumber(db, siteId, anonId);
    if (vid === undefined) continue;
    for (const visit of listVisitsStartedBefore(db, siteId, anonId, beforeMs)) touched.push({ visit, vid });
  }
  return {
    finish() {
      const maxSeq = readProjectorPosition(db);
      const valueIds = new ValueIds(db);
      for (const { visit, vid } of touched) {
        if (visit.end_ts < beforeMs) forgetVisitSequences(db, vid, [visit]);
        else rebuildVisit(db, visit, vid, maxSeq, valueIds);
      }
    },
  };
}

export function deleteSiteVisitSequences(db: Db, siteId: string): void {
  deleteVisitSequencesOfSite(db, siteId);
}

/** Whether the table answers: not while the upgrade's backfill is pending. */
export function visitSequencesReady(db: Db): boolean {
  return readBackfillState(db) === undefined;
}

/** Whether the rows' filter values answer: the table does, and schema 31's fill is not pending. */
export function visitAttributesReady(db: Db): boolean {
  return visitSequencesReady(db) && readAttributesBackfillState(db) === undefined;
}

/**
 * Whether the rows stand in for their visits' raw events (the raw pass's narrow read): the table and its filter
 * values answer, and schema 32's fill is not pending.
 */
export function visitEventsReady(db: Db): boolean {
  return visitAttributesReady(db) && readEventsBackfillState(db) === undefined;
}

/** Stored visits per backfill transaction: a short write lock each. */
const backfillChunk = 5_000;

export interface BackfillOptions {
  /** Stored visits per transaction. */
  chunk?: number;
  /** Stop after this many transactions (a test's crash midway); the rest is done at the next start. */
  maxChunks?: number;
}

/** A resumable fill's cursor over the stored visits (schema 30's, 31's, 32's). */
interface FillCursor {
  read(db: Db): BackfillState | undefined;
  advance(db: Db, afterVisit: number): void;
  finish(db: Db): void;
}

/**
 * Runs a fill over the stored visits up to its cursor's last, a chunk of visits per transaction that also moves the
 * cursor (a crash resumes at the next start), calling `each` for every visit that has a visitor number; returns the
 * visits read.
 */
function fillByVisitChunks(db: Db, cursor: FillCursor, options: BackfillOptions, each: (visit: VisitRow, vid: number, maxSeq: number, valueIds: ValueIds) => void): number {
  const chunk = options.chunk ?? backfillChunk;
  let visits = 0;
  let chunks = 0;
  for (let done = false; !done && chunks < (options.maxChunks ?? Number.POSITIVE_INFINITY); chunks++) {
    done = inWriteTransaction(db, () => {
      const state = cursor.read(db);
      if (!state) return true;
      const maxSeq = readProjectorPosition(db);
      const valueIds = new ValueIds(db);
      const rows = listVisitsAfter(db, state.after_visit, state.last_visit, chunk);
      for (const visit of rows) {
        const vid = findVisitorNumber(db, visit.site_id, visit.anon_id);
        if (vid !== undefined) each(visit, vid, maxSeq, valueIds);
      }
      visits += rows.length;
      if (rows.length < chunk) {
        cursor.finish(db);
        return true;
      }
      cursor.advance(db, rows[rows.length - 1]!.id);
      return false;
    });
  }
  return visits;
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

/**
 * Fills the table from the visits stored before schema version 30, then the filter values of the rows stored before
 * schema version 31 (backfillVisitAttributes), at start before the projector; returns the visits backfilled (0 when
 * none was pending). Resumable: each chunk commits with its cursor.
 * @example backfillVisitSequences(db); // in startProjection, after the reconciliation and the repairs
 */
export function backfillVisitSequences(db: Db, options: BackfillOptions = {}): number {
  const pending = readBackfillState(db);
  if (!pending) return backfillVisitAttributes(db, options);
  const started = performance.now();
  // On stderr, as the upgrade's other lines: stdout may be --json.
  process.stderr.write(`Schema 30: filling visit_sequences from the stored visits (ids ${pending.after_visit + 1} to ${pending.last_visit})\n`);
  const cursor = { read: readBackfillState, advance: advanceBackfill, finish: finishBackfill };
  const visits = fillByVisitChunks(db, cursor, options, (visit, vid, maxSeq, valueIds) => rebuildVisit(db, visit, vid, maxSeq, valueIds));
  process.stderr.write(`Schema 30: ${visitSequencesReady(db) ? 'done' : 'paused'}, ${visits} visit(s) in ${seconds(started)} s\n`);
  // Rows written by it carry their filter values already; the fill of 31 then has little or nothing left to do.
  return visitSequencesReady(db) ? visits + backfillVisitAttributes(db, options) : visits;
}

/**
 * Rebuilds every stored visit's row with its packed events and campaign (schema version 32; a visit without a
 * pageview gets its first row), a chunk of visits per transaction with its cursor; returns the visits read (0 when
 * none was pending). Call after schema 31's fill (backfillVisitAttributes calls it when that one is done).
 */
export function backfillVisitEvents(db: Db, options: BackfillOptions = {}): number {
  const pending = readEventsBackfillState(db);
  if (!pending) return 0;
  const started = performance.now();
  process.stderr.write(`Schema 32: the events of visit_sequences from the stored visits (ids ${pending.after_visit + 1} to ${pending.last_visit})\n`);
  const cursor = { read: readEventsBackfillState, advance: advanceEventsBackfill, finish: finishEventsBackfill };
  const visits = fillByVisitChunks(db, cursor, options, (visit, vid, maxSeq, valueIds) => rebuildVisit(db, visit, vid, maxSeq, valueIds));
  process.stderr.write(`Schema 32: ${readEventsBackfillState(db) === undefined ? 'done' : 'paused'}, ${visits} visit(s) in ${seconds(started)} s\n`);
  return visits;
}

/**
 * Gives the rows stored before schema version 31 their filter values, from the stored visits, a chunk of visits per
 * transaction with its cursor; returns the visits read (0 when none was pending). A visit's row starting at the
 * visit's start takes the visit's attributes (its first event's); any other (a visit the purge cut: the row starts
 * at its first kept event) is rebuilt from its events. Call after schema 30's fill (its rows would be missed).
 */
export function backfillVisitAttributes(db: Db, options: BackfillOptions = {}): number {
  const pending = readAttributesBackfillState(db);
  if (!pending) return visitSequencesReady(db) ? backfillVisitEvents(db, options) : 0;
  const started = performance.now();
  process.stderr.write(`Schema 31: the visit filters of visit_sequences from the stored visits (ids ${pending.after_visit + 1} to ${pending.last_visit})\n`);
  let rebuilt = 0;
  const cursor = { read: readAttributesBackfillState, advance: advanceAttributesBackfill, finish: finishAttributesBackfill };
  const visits = fillByVisitChunks(db, cursor, options, (visit, vid, maxSeq, valueIds) => {
    const visitor = visitorOf(vid, visit.is_internal);
    const starts = listStartsInSpan(db, { site_id: visit.site_id, visitor, from_ts: visit.start_ts, to_ts: visit.end_ts });
    if (starts.length === 0) return;
    if (starts.length === 1 && starts[0] === visit.start_ts) {
      setVisitSequenceAttributes(db, { site_id: visit.site_id, start_ts: visit.start_ts, visitor, ...valueIds.attributes(visit.site_id, visit) });
    } else {
      rebuildVisit(db, visit, vid, maxSeq, valueIds);
      rebuilt++;
    }
  });
  const done = readAttributesBackfillState(db) === undefined;
  process.stderr.write(`Schema 31: ${done ? 'done' : 'paused'}, ${visits} visit(s) (${rebuilt} row(s) rebuilt) in ${seconds(started)} s\n`);
  return done ? visits + backfillVisitEvents(db, options) : visits;
}
