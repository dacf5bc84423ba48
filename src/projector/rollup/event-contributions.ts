// How one stored event changes the rollups: its own counts (event dimensions by the event, visit dimensions by
// its visit), the measures of the visits it replaced and of the visit it is now part of, and, when visits merged
// or gained an earlier first event, the move of their other events' counts to the visit's new values.
import type { Db } from '../../db/open.ts';
import type { VisitRow } from '../queries/visit-rows.ts';
import type { LoggedEvent } from '../../event-store/stored-event.ts';
import type { VisitChange } from '../visits.ts';
import { countsPageviewVisitorsOnly, Dim, keepsVisitorSets, pageKeyOf, purchaseType, visitDims, visitDimValue } from '../../vocabulary/dimensions.ts';
import { dayOf } from '../../vocabulary/periods.ts';
import { findEventPage } from '../../event-store/queries/event-page.ts';
import { listVisitEvents } from '../queries/visitor-events.ts';
import { field } from '../../rollup-format/counter-shard.ts';
import { addRevenue, addVisitor, removeVisitor, type RollupDelta } from './rollup-delta.ts';

/** What counting an event needs to know about it. */
export interface EventFacts {
  site_id: string;
  anon_id: string;
  ts: number;
  type: string;
  path: string | null;
  query: string | null;
  is_internal: 0 | 1;
  revenue_minor: number | null;
  revenue_currency: string | null;
}

/** add: the visitor joins the sets; check: it may leave them (checked at flush); remove: it leaves them. */
export type Membership = 'add' | 'check' | 'remove';

export const eventDims = [Dim.total, Dim.type, Dim.path, Dim.page] as const;

export function eventDimValue(event: Pick<EventFacts, 'type' | 'path' | 'query'>, dim: (typeof eventDims)[number]): string | null {
  if (dim === Dim.total) return '';
  if (dim === Dim.type) return event.type;
  if (dim === Dim.path) return event.path;
  return pageKeyOf(event.path, event.query);
}

/**
 * Counts (sign 1) or uncounts (sign -1) one event under each dimension's value, at its day.
 * @example countEvent(delta, event, [Dim.source], () => 'google', vid, 1, 'add');
 */
export function countEvent(
  delta: RollupDelta,
  event: EventFacts,
  dims: readonly Dim[],
  valueOf: (dim: Dim) => string | null,
  vid: number,
  sign: 1 | -1,
  membership: Membership,
): void {
  const period = delta.day(event.site_id, dayOf(event.ts), event.is_internal);
  const isPageview = event.type === 'pageview' ? 1 : 0;
  const isConversion = event.type === purchaseType ? 1 : 0;
  const hasRevenue = event.revenue_minor !== null && event.revenue_currency !== null;
  for (const dim of dims) {
    const value = valueOf(dim);
    if (value === null) continue;
    const entry = period.entry(dim, value);
    entry.counters[field.events]! += sign;
    entry.counters[field.pageviews]! += sign * isPageview;
    entry.counters[field.conversions]! += sign * isConversion;
    if (dim === Dim.campaign && hasRevenue) addRevenue(entry, event.revenue_currency!, sign * event.revenue_minor!);
    if (!keepsVisitorSets(dim) || (!isPageview && countsPageviewVisitorsOnly(dim))) continue;
    if (membership === 'add') addVisitor(entry, vid);
    else removeVisitor(entry, vid, event.anon_id, membership === 'remove');
  }
}

/** The page (path and cleaned query) of a visit's entry or exit event, each looked up once. */
export type PageOfSeq = (seq: number | null) => string | null;

export function pageLookup(db: Db, current?: LoggedEvent): PageOfSeq {
  const known = new Map<number, string | null>();
  return (seq) => {
    if (seq === null) return null;
    if (current && seq === current.seq) return pageKeyOf(current.path, current.query);
    if (!known.has(seq)) {
      const page = findEventPage(db, seq);
      known.set(seq, page ? pageKeyOf(page.path, page.query) : null);
    }
    return known.get(seq)!;
  };
}

/**
 * One lookup for a whole projector batch: the pages of the batch's own events come from memory (a visit's entry or
 * exit is usually an event of the same batch), the others are read once each. Events never change, so a page read
 * at any point of the batch stays true for all of it.
 */
export function batchPageLookup(db: Db, events: readonly LoggedEvent[]): PageOfSeq {
  const inBatch = new Map<number, LoggedEvent>();
  for (const event of events) inBatch.set(event.seq, event);
  const known = new Map<number, string | null>();
  return (seq) => {
    if (seq === null) return null;
    let page = known.get(seq);
    if (page !== undefined || known.has(seq)) return page ?? null;
    const event = inBatch.get(seq);
    if (event) page = pageKeyOf(event.path, event.query);
    else {
      const stored = findEventPage(db, seq);
      page = stored ? pageKeyOf(stored.path, stored.query) : null;
    }
    known.set(seq, page);
    return page;
  };
}

function visitMeasures(visit: VisitRow): [number, number][] {
  return [
    [field.visits, 1],
    [field.bounces, visit.pageviews === 1 && visit.events === 1 ? 1 : 0],
    [field.duration_ms, visit.end_ts - visit.start_ts],
    [field.visit_pageviews, visit.pageviews],
    [field.visit_events, visit.events],
  ];
}

/** Where a visit's measures are counted: the total, its visit dimension values, its entry path and page. */
function entryValuesOf(visit: VisitRow, pageOf: PageOfSeq): [Dim, string | null][] {
  return [
    [Dim.total, ''],
    ...visitDims.map((dim): [Dim, string | null] => [dim, visitDimValue(visit, dim)]),
    // Under a path, visit measures belong to the visit's entry page (landing-page semantics, docs/reports.md).
    [Dim.path, visit.entry_path],
    [Dim.page, pageOf(visit.entry_seq)],
  ];
}

function addMeasures(delta: RollupDelta, visit: VisitRow, values: [Dim, string | null][], measures: [number, number][], sign: 1 | -1): void {
  const period = delta.day(visit.site_id, dayOf(visit.start_ts), visit.is_internal);
  for (const [dim, value] of values) {
    if (value === null) continue;
    const counters = period.entry(dim, value).counters;
    for (const [index, amount] of measures) counters[index]! += sign * amount;
  }
}

function addExit(delta: RollupDelta, visit: VisitRow, pageOf: PageOfSeq, sign: 1 | -1): void {
  addMeasures(delta, visit, [[Dim.path, visit.exit_path], [Dim.page, pageOf(visit.exit_seq)]], [[field.exits, 1]], sign);
}

/** Counts (1) or uncounts (-1) a visit's measures at the day it starts. */
export function countVisit(delta: RollupDelta, visit: VisitRow, sign: 1 | -1, pageOf: PageOfSeq): void {
  addMeasures(delta, visit, entryValuesOf(visit, pageOf), visitMeasures(visit), sign);
  addExit(delta, visit, pageOf, sign);
}

/** The common case, a visit extended by one event: only its measures (and maybe its exit) change. */
function isExtension(before: VisitRow, after: VisitRow): boolean {
  return (
    before.entry_seq === after.entry_seq &&
    before.is_internal === after.is_internal &&
    dayOf(before.start_ts) === dayOf(after.start_ts) &&
    visitDims.every((dim) => visitDimValue(before, dim) === visitDimValue(after, dim))
  );
}

/** Adds `amount` of one measure under every value a visit's measures count at (its total, visit dimensions, entry path and page). */
function addEntryMeasure(delta: RollupDelta, visit: VisitRow, pageOf: PageOfSeq, index: number, amount: number): void {
  const period = delta.day(visit.site_id, dayOf(visit.start_ts), visit.is_internal);
  period.entry(Dim.total, '').counters[index]! += amount;
  for (const dim of visitDims) {
    const value = visitDimValue(visit, dim);
    if (value !== null) period.entry(dim, value).counters[index]! += amount;
  }
  if (visit.entry_path !== null) period.entry(Dim.path, visit.entry_path).counters[index]! += amount;
  const page = pageOf(visit.entry_seq);
  if (page !== null) period.entry(Dim.page, page).counters[index]! += amount;
}

/** Replaces the measures of the removed visits by those of the added one. */
export function countVisitChange(delta: RollupDelta, change: VisitChange, pageOf: PageOfSeq): void {
  const [before] = change.removed;
  if (change.removed.length === 1 && isExtension(before!, change.added)) {
    // The common case, without building the measure lists: only what moved is added.
    const after = change.added;
    const bounces = (after.pageviews === 1 && after.events === 1 ? 1 : 0) - (before!.pageviews === 1 && before!.events === 1 ? 1 : 0);
    if (bounces !== 0) addEntryMeasure(delta, after, pageOf, field.bounces, bounces);
    const duration = after.end_ts - after.start_ts - (before!.end_ts - before!.start_ts);
    if (duration !== 0) addEntryMeasure(delta, after, pageOf, field.duration_ms, duration);
    if (after.pageviews !== before!.pageviews) addEntryMeasure(delta, after, pageOf, field.visit_pageviews, after.pageviews - before!.pageviews);
    if (after.events !== before!.events) addEntryMeasure(delta, after, pageOf, field.visit_events, after.events - before!.events);
    if (before!.exit_seq !== after.exit_seq) {
      addExit(delta, before!, pageOf, -1);
      addExit(delta, after, pageOf, 1);
    }
    return;
  }
  for (const visit of change.removed) countVisit(delta, visit, -1, pageOf);
  countVisit(delta, change.added, 1, pageOf);
}

/** A replaced visit whose values differ from its successor's: its other events now count under the new values. */
function moveVisitEvents(db: Db, delta: RollupDelta, before: VisitRow, after: VisitRow, vid: number, currentSeq: number, beforeIndexRead?: () => void): void {
  const changed = visitDims.filter((dim) => visitDimValue(before, dim) !== visitDimValue(after, dim));
  if (changed.length === 0) return;
  beforeIndexRead?.();
  const events = listVisitEvents(db, {
    site_id: before.site_id,
    anon_id: before.anon_id,
    is_internal: before.is_internal,
    start_ts: before.start_ts,
    end_ts: before.end_ts,
    except_seq: currentSeq,
    max_seq: currentSeq,
  });
  for (const row of events) {
    const facts: EventFacts = { ...row, site_id: before.site_id, anon_id: before.anon_id, is_internal: before.is_internal };
    countEvent(delta, facts, changed, (dim) => visitDimValue(before, dim as (typeof visitDims)[number]), vid, -1, 'check');
    countEvent(delta, facts, changed, (dim) => visitDimValue(after, dim as (typeof visitDims)[number]), vid, 1, 'add');
  }
}

/** Counts one event (sign 1, joining the sets) under its event dimensions and its visit's dimensions, without a closure per event. */
function countNewEvent(delta: RollupDelta, event: LoggedEvent, visit: VisitRow, vid: number): void {
  const period = delta.day(event.site_id, dayOf(event.ts), event.is_internal);
  const isPageview = event.type === 'pageview';
  const isConversion = event.type === purchaseType ? 1 : 0;
  const hasRevenue = event.revenue_minor !== null && event.revenue_currency !== null;
  const count = (dim: Dim, value: string | null) => {
    if (value === null) return;
    const entry = period.entry(dim, value);
    entry.counters[field.events]! += 1;
    if (isPageview) entry.counters[field.pageviews]! += 1;
    entry.counters[field.conversions]! += isConversion;
    if (dim === Dim.campaign && hasRevenue) addRevenue(entry, event.revenue_currency!, event.revenue_minor!);
    if (!keepsVisitorSets(dim) || (!isPageview && countsPageviewVisitorsOnly(dim))) return;
    addVisitor(entry, vid);
  };
  count(Dim.total, '');
  count(Dim.type, event.type);
  count(Dim.path, event.path);
  count(Dim.page, pageKeyOf(event.path, event.query));
  for (const dim of visitDims) count(dim, visitDimValue(visit, dim));
}

/**
 * Everything one projected (non-bot) event changes; `change` is the visit change it caused; `pageOf` the batch's
 * pages; `beforeIndexRead` writes the batch's pending visitor index before a visit's other events are read from it.
 */
export function addProjectedEvent(db: Db, delta: RollupDelta, event: LoggedEvent, change: VisitChange, vid: number, pageOf: PageOfSeq, beforeIndexRead?: () => void): void {
  countNewEvent(delta, event, change.added, vid);
  countVisitChange(delta, change, pageOf);
  for (const visit of change.removed) moveVisitEvents(db, delta, visit, change.added, vid, event.seq, beforeIndexRead);
}
