// Assigns each projected event to its visit so that visits always equal a from-scratch computation over the raw
// events (CONTRACT section 4), whatever order events arrive in: an event may start, extend or bridge visits.
// A batch works on its visitors' visits in memory: read once per visitor and stretch of time the batch touches
// (BatchVisits.load), assigned event by event, and each changed visit written once at the end (write).
import type { Db } from '../db/open.ts';
import { deleteVisit, insertVisit, listVisitsInReach, type VisitRow, updateVisit, updateVisitTail } from './queries/visit-rows.ts';
import type { LoggedEvent } from '../event-store/stored-event.ts';
import { sessionGapMs } from '../vocabulary/visit-rule.ts';


function isBefore(ts: number, seq: number, otherTs: number, otherSeq: number): boolean {
  return ts < otherTs || (ts === otherTs && seq < otherSeq);
}

function entryOf(event: LoggedEvent): Pick<VisitRow, 'entry_seq' | 'entry_path' | 'source' | 'utm_source' | 'utm_medium' | 'utm_campaign' | 'browser' | 'os' | 'device_type' | 'country' | 'region' | 'city'> {
  return {
    entry_seq: event.seq,
    entry_path: event.path,
    source: event.source,
    utm_source: event.utm_source,
    utm_medium: event.utm_medium,
    utm_campaign: event.utm_campaign,
    browser: event.browser,
    os: event.os,
    device_type: event.device_type,
    country: event.country,
    region: event.region,
    city: event.city,
  };
}

function newVisit(event: LoggedEvent): Omit<VisitRow, 'id'> {
  const isPageview = event.type === 'pageview';
  return {
    site_id: event.site_id,
    anon_id: event.anon_id,
    is_internal: event.is_internal,
    start_ts: event.ts,
    end_ts: event.ts,
    events: 1,
    pageviews: isPageview ? 1 : 0,
    ...entryOf(event),
    exit_ts: isPageview ? event.ts : null,
    exit_seq: isPageview ? event.seq : null,
    exit_path: isPageview ? event.path : null,
  };
}

/** The later exit of two visits (null-aware). */
type ExitFields = Pick<VisitRow, 'exit_ts' | 'exit_seq' | 'exit_path'>;

function laterExit(a: ExitFields, b: ExitFields): ExitFields {
  const pick = (row: ExitFields): ExitFields => ({ exit_ts: row.exit_ts, exit_seq: row.exit_seq, exit_path: row.exit_path });
  if (b.exit_ts === null || b.exit_seq === null) return pick(a);
  if (a.exit_ts === null || a.exit_seq === null || isBefore(a.exit_ts, a.exit_seq, b.exit_ts, b.exit_seq)) return pick(b);
  return pick(a);
}

function merge(a: VisitRow, b: VisitRow): VisitRow {
  const entrySource = isBefore(a.start_ts, a.entry_seq, b.start_ts, b.entry_seq) ? a : b;
  return {
    ...a,
    ...entryFields(entrySource),
    start_ts: Math.min(a.start_ts, b.start_ts),
    end_ts: Math.max(a.end_ts, b.end_ts),
    events: a.events + b.events,
    pageviews: a.pageviews + b.pageviews,
    ...laterExit(a, b),
  };
}

function entryFields(row: VisitRow): ReturnType<typeof entryOf> {
  const { entry_seq, entry_path, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city } = row;
  return { entry_seq, entry_path, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city };
}

/** The visit with the event added: one new object (the batch keeps the old one as the change's `removed`). */
function extend(visit: VisitRow, event: LoggedEvent): VisitRow {
  const isPageview = event.type === 'pageview';
  const extended: VisitRow = { ...visit };
  extended.start_ts = Math.min(visit.start_ts, event.ts);
  extended.end_ts = Math.max(visit.end_ts, event.ts);
  extended.events = visit.events + 1;
  if (isPageview) extended.pageviews = visit.pageviews + 1;
  if (isBefore(event.ts, event.seq, visit.start_ts, visit.entry_seq)) {
    extended.entry_seq = event.seq;
    extended.entry_path = event.path;
    extended.source = event.source;
    extended.utm_source = event.utm_source;
    extended.utm_medium = event.utm_medium;
    extended.utm_campaign = event.utm_campaign;
    extended.browser = event.browser;
    extended.os = event.os;
    extended.device_type = event.device_type;
    extended.country = event.country;
    extended.region = event.region;
    extended.city = event.city;
  }
  // The later exit: this pageview unless the visit's exit comes after it.
  if (isPageview && (extended.exit_ts === null || extended.exit_seq === null || isBefore(extended.exit_ts, extended.exit_seq, event.ts, event.seq))) {
    extended.exit_ts = event.ts;
    extended.exit_seq = event.seq;
    extended.exit_path = event.path;
  }
  return extended;
}

/** The visits an event replaced (`removed`) by the one it is now part of (`added`). */
export interface VisitChange {
  removed: readonly VisitRow[];
  added: VisitRow;
}

/**
 * A visit as the batch has it: `stored` is the row as read (undefined for a visit the batch started; after a merge,
 * the row the merged visit is stored under), `events` the batch's events in it, in the order they were assigned.
 */
interface Slot {
  visit: VisitRow;
  stored: VisitRow | undefined;
  events: LoggedEvent[];
}

/** A visit the batch changed, as it stored it, for the batch's subscribers. */
export interface ChangedVisit {
  /** The row as stored now (its id too). */
  visit: VisitRow;
  /** Its visitor's number (report_visitors.vid). */
  vid: number;
  /** The batch's events in it, in (ts, seq) order. */
  events: readonly LoggedEvent[];
  /**
   * Whether it holds events of earlier batches (it grew from, or merged with, a stored visit); when false, `events`
   * are all of its events.
   */
  grewFromStored: boolean;
}

/** The events a batch projects (non-bots of existing sites), by visitor: site, anon_id and the internal flag. */
export function visitorKeyOf(event: Pick<LoggedEvent, 'site_id' | 'anon_id' | 'is_internal'>): string {
  return `${event.site_id}\u0000${event.anon_id}\u0000${event.is_internal}`;
}

/** Index of the last slot starting before `ts` (-1 when none); slots are sorted by start_ts. */
function lastStartingBefore(slots: readonly Slot[], ts: number): number {
  let low = 0;
  let high = slots.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (slots[middle]!.visit.start_ts < ts) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

/**
 * Whether events are in (ts, seq) order: the common case, events assigned in ingest order as they happened. A check
 * is cheaper than a sort, whose comparisons read the rows' properties again and again (better-sqlite3's rows of this
 * many columns have slow, dictionary-mode properties).
 */
function inTimeOrder(events: readonly LoggedEvent[]): boolean {
  let previous = events[0]!;
  for (let index = 1; index < events.length; index++) {
    const event = events[index]!;
    if (event.ts < previous.ts || (event.ts === previous.ts && event.seq < previous.seq)) return false;
    previous = event;
  }
  return true;
}

/**
 * One batch's visits in memory. Visits are disjoint and at least a gap apart, so the visits an event may join are
 * those overlapping [ts - gap, ts + gap]; a visitor's events of the batch, taken in ts order and cut where two are
 * more than two gaps apart, give stretches whose visits are read with one query each: exactly the visits the batch
 * can touch, at most about two per event, so memory follows the batch's size.
 */
export class BatchVisits {
  private readonly byVisitor = new Map<string, Slot[]>();
  /** The stored visits a merge removed (each lies inside the span of the visit it joined). */
  private readonly deleted: VisitRow[] = [];

  /** Reads the visits `events` (ingest order; all of them projected) can touch. */
  static load(db: Db, events: readonly LoggedEvent[]): BatchVisits {
    const visits = new BatchVisits();
    const times = new Map<string, { event: LoggedEvent; ts: number[] }>();
    for (const event of events) {
      const key = visitorKeyOf(event);
      const found = times.get(key);
      if (found) found.ts.push(event.ts);
      else times.set(key, { event, ts: [event.ts] });
    }
    for (const [key, { event, ts }] of times) {
      if (ts.length > 1) ts.sort((a, b) => a - b);
      const slots: Slot[] = [];
      const seen = new Set<number>();
      const read = (first: number, last: number) => {
        const rows = listVisitsInReach(db, { site_id: event.site_id, anon_id: event.anon_id, is_internal: event.is_internal, from_ts: first - sessionGapMs, before_ts: last + sessionGapMs });
        for (const row of rows) {
          if (seen.has(row.id)) continue;
          seen.add(row.id);
          slots.push({ visit: row, stored: row, events: [] });
        }
      };
      let first = ts[0]!;
      for (let index = 1; index < ts.length; index++) {
        if (ts[index]! - ts[index - 1]! < 2 * sessionGapMs) continue;
        read(first, ts[index - 1]!);
        first = ts[index]!;
      }
      read(first, ts[ts.length - 1]!);
      if (slots.length > 1) slots.sort((a, b) => a.visit.start_ts - b.visit.start_ts);
      visits.byVisitor.set(key, slots);
    }
    return visits;
  }

  /** Once per projected (non-bot) event of the batch given to load, in ingest order. */
  assign(event: LoggedEvent): VisitChange {
    const key = visitorKeyOf(event);
    let slots = this.byVisitor.get(key);
    if (!slots) this.byVisitor.set(key, (slots = []));
    // Of the (at most two) latest visits starting before ts + gap, those ending after ts - gap.
    const latest = lastStartingBefore(slots, event.ts + sessionGapMs);
    const nearby: number[] = [];
    for (let index = latest; index >= 0 && index >= latest - 1; index--) if (slots[index]!.visit.end_ts > event.ts - sessionGapMs) nearby.push(index);

    if (nearby.length === 0) {
      const added = { ...newVisit(event), id: 0 };
      slots.splice(latest + 1, 0, { visit: added, stored: undefined, events: [event] });
      return { removed: [], added };
    }
    if (nearby.length === 1) {
      const slot = slots[nearby[0]!]!;
      const before = slot.visit;
      slot.visit = extend(before, event);
      slot.events.push(event);
      return { removed: [before], added: slot.visit };
    }
    // The event bridges two visits: they become one, stored under the earlier's id (the later's if only it has one).
    const earlierIndex = nearby[1]!;
    const earlier = slots[earlierIndex]!;
    const later = slots[earlierIndex + 1]!;
    const merged = extend(merge(earlier.visit, later.visit), event);
    const [kept, dropped] = earlier.stored || !later.stored ? [earlier, later] : [later, earlier];
    const removed = [earlier.visit, later.visit];
    kept.visit = kept === earlier ? merged : { ...merged, id: later.visit.id };
    if (dropped.stored) this.deleted.push(dropped.stored);
    kept.events = kept.events.concat(dropped.events, event);
    slots.splice(earlierIndex, 2, kept);
    return { removed, added: kept.visit };
  }

  /** Writes every visit the batch changed, once: before the rollups, which check leavers against the visits. */
  write(db: Db): void {
    for (const { id } of this.deleted) deleteVisit(db, id);
    for (const slots of this.byVisitor.values()) {
      for (const { visit, stored } of slots) {
        // The placeholder id of a visit the batch started becomes the stored one (the subscribers see the rows as stored).
        if (!stored) visit.id = insertVisit(db, visit);
        else if (visit === stored) continue;
        else if (visit.start_ts === stored.start_ts && visit.entry_seq === stored.entry_seq) updateVisitTail(db, visit);
        else updateVisit(db, visit);
      }
    }
  }

  /** After write: every visit the batch changed, as stored, with the batch's events in it and its visitor's number. */
  changed(vidOf: (visit: VisitRow) => number): ChangedVisit[] {
    const changed: ChangedVisit[] = [];
    for (const slots of this.byVisitor.values()) {
      for (const { visit, stored, events } of slots) {
        if (visit === stored) continue;
        if (!inTimeOrder(events)) events.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
        changed.push({ visit, vid: vidOf(visit), events, grewFromStored: stored !== undefined });
      }
    }
    return changed;
  }

  /** The stored visits a merge removed. */
  removed(): readonly VisitRow[] {
    return this.deleted;
  }
}
