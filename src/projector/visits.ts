// Assigns each projected event to its visit so that visits always equal a from-scratch computation over the raw
// events (CONTRACT section 4), whatever order events arrive in: an event may start, extend or bridge visits.
import type { Db } from '../db/open.ts';
import {
  deleteVisit,
  findNearbyVisits,
  insertVisit,
  type VisitRow,
  updateVisit,
  updateVisitTail,
} from './queries/visit-rows.ts';
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

function extend(visit: VisitRow, event: LoggedEvent): VisitRow {
  const isPageview = event.type === 'pageview';
  const extended: VisitRow = {
    ...visit,
    start_ts: Math.min(visit.start_ts, event.ts),
    end_ts: Math.max(visit.end_ts, event.ts),
    events: visit.events + 1,
    pageviews: visit.pageviews + (isPageview ? 1 : 0),
  };
  const withEntry = isBefore(event.ts, event.seq, visit.start_ts, visit.entry_seq) ? { ...extended, ...entryOf(event) } : extended;
  return isPageview ? { ...withEntry, ...laterExit(withEntry, { exit_ts: event.ts, exit_seq: event.seq, exit_path: event.path }) } : withEntry;
}

/** The visits an event replaced (`removed`) by the one it is now part of (`added`). */
export interface VisitChange {
  removed: readonly VisitRow[];
  added: VisitRow;
}

/** Runs inside the projector's transaction, once per projected non-bot event, in ingest order. */
export function assignToVisit(db: Db, event: LoggedEvent): VisitChange {
  const nearby = findNearbyVisits(db, {
    site_id: event.site_id,
    anon_id: event.anon_id,
    is_internal: event.is_internal,
    start_before: event.ts + sessionGapMs,
  }).filter((session) => session.end_ts > event.ts - sessionGapMs);

  let removed: VisitRow[];
  let added: VisitRow;
  if (nearby.length === 0) {
    const row = newVisit(event);
    added = { ...row, id: insertVisit(db, row) };
    removed = [];
  } else if (nearby.length === 1) {
    const before = nearby[0]!;
    added = extend(before, event);
    if (added.start_ts === before.start_ts && added.entry_seq === before.entry_seq) updateVisitTail(db, added);
    else updateVisit(db, added);
    removed = [before];
  } else {
    // The event bridges two visits: they become one (the earlier keeps its id).
    const [earlier, later] = nearby[0]!.start_ts < nearby[1]!.start_ts ? [nearby[0]!, nearby[1]!] : [nearby[1]!, nearby[0]!];
    added = extend(merge(earlier, later), event);
    deleteVisit(db, later.id);
    updateVisit(db, added);
    removed = [earlier, later];
  }
  return { removed, added };
}
