// What the shipper reads from the embedded database: the event log after a position, up to the projector's position
// (so every shipped event's visit is derived), and the current visits of the visitors a batch touched.
import type { Db } from '../db/open.ts';
import { preparedOnce } from '../db/statements.ts';
import { readProjectorPosition } from '../projector/queries/projector-state.ts';
import type { VisitAttributes } from '../vocabulary/dimensions.ts';

export interface ShippedEventRow extends VisitAttributes {
  seq: number;
  site_id: string;
  id: string;
  type: string;
  ts: number;
  received_at: number;
  anon_id: string;
  user_id: string | null;
  path: string | null;
  query: string | null;
  is_bot: number;
  is_internal: number;
  revenue_minor: number | null;
  revenue_currency: string | null;
  raw: string;
}

export interface ShippedVisitRow extends VisitAttributes {
  visit_id: number;
  site_id: string;
  anon_id: string;
  is_internal: number;
  start_ts: number;
  end_ts: number;
  events: number;
  pageviews: number;
  entry_seq: number;
  entry_path: string | null;
  entry_query: string | null;
  exit_ts: number | null;
  exit_seq: number | null;
  exit_path: string | null;
  exit_query: string | null;
}

export interface VisitorSpan {
  site_id: string;
  anon_id: string;
  is_internal: number;
  /** The visitor's first and last event time in the batch. */
  from_ts: number;
  to_ts: number;
}

const statements = preparedOnce((db) => ({
  events: db.prepare<{ after_seq: number; through_seq: number; batch: number }, ShippedEventRow>(
    `SELECT seq, site_id, id, type, ts, received_at, anon_id, user_id, path, query, source, utm_source, utm_medium,
       utm_campaign, browser, os, device_type, country, region, city, is_bot, is_internal, revenue_minor, revenue_currency, raw
     FROM events WHERE seq > :after_seq AND seq <= :through_seq ORDER BY seq LIMIT :batch`,
  ),
  countAfter: db.prepare<{ after_seq: number }, number>('SELECT count(*) FROM events WHERE seq > :after_seq').pluck(),
  atSeq: db.prepare<{ seq: number }, { site_id: string; ts: number; id: string }>('SELECT site_id, ts, id FROM events WHERE seq = :seq'),
  countBetween: db.prepare<{ after_seq: number; through_seq: number }, number>('SELECT count(*) FROM events WHERE seq > :after_seq AND seq <= :through_seq').pluck(),
  // The visits that hold a time span of one visitor's events (visits are disjoint, so these are the ones holding any
  // of them); sessions_by_visitor finds them.
  visits: db.prepare<VisitorSpan, ShippedVisitRow>(
    `SELECT s.id AS visit_id, s.site_id, s.anon_id, s.is_internal, s.start_ts, s.end_ts, s.events, s.pageviews, s.entry_seq,
       s.entry_path, entry.query AS entry_query, s.source, s.utm_source, s.utm_medium, s.utm_campaign, s.browser, s.os,
       s.device_type, s.country, s.region, s.city, s.exit_ts, s.exit_seq, s.exit_path, exit.query AS exit_query
     FROM sessions s
     LEFT JOIN events entry ON entry.seq = s.entry_seq
     LEFT JOIN events exit ON exit.seq = s.exit_seq
     WHERE s.site_id = :site_id AND s.anon_id = :anon_id AND s.is_internal = :is_internal
       AND s.start_ts <= :to_ts AND s.end_ts >= :from_ts`,
  ),
}));

/** One consistent read of a batch: the events after `afterSeq` up to the projector's position, and their visits. */
export function readShippingBatch(db: Db, afterSeq: number, batchSize: number): { projectedSeq: number; events: ShippedEventRow[]; visits: ShippedVisitRow[] } {
  return db.transaction(() => {
    const projectedSeq = readProjectorPosition(db);
    const events = statements(db).events.all({ after_seq: afterSeq, through_seq: projectedSeq, batch: batchSize });
    const spans = new Map<string, VisitorSpan>();
    for (const event of events) {
      if (event.is_bot) continue;
      const key = `${event.site_id}\u0000${event.anon_id}\u0000${event.is_internal}`;
      const span = spans.get(key);
      if (!span) spans.set(key, { site_id: event.site_id, anon_id: event.anon_id, is_internal: event.is_internal, from_ts: event.ts, to_ts: event.ts });
      else {
        span.from_ts = Math.min(span.from_ts, event.ts);
        span.to_ts = Math.max(span.to_ts, event.ts);
      }
    }
    const visits = [...spans.values()].flatMap((span) => statements(db).visits.all(span));
    return { projectedSeq, events, visits };
  }).deferred();
}

/** Events the SQLite log holds after `afterSeq` (the shipping lag; a range of the primary key). */
export function countEventsAfter(db: Db, afterSeq: number): number {
  return statements(db).countAfter.get({ after_seq: afterSeq }) ?? 0;
}

/** What a backfill has ahead: events after `afterSeq` the projector has passed (shippable now) and those it has not. */
export function countBacklog(db: Db, afterSeq: number): { shippable: number; notProjected: number } {
  return db.transaction(() => {
    const projectedSeq = readProjectorPosition(db);
    const shippable = statements(db).countBetween.get({ after_seq: afterSeq, through_seq: projectedSeq }) ?? 0;
    return { shippable, notProjected: (statements(db).countAfter.get({ after_seq: afterSeq }) ?? 0) - shippable };
  }).deferred();
}

/** Events the SQLite log holds with after < seq <= through. */
export function countEventsBetween(db: Db, afterSeq: number, throughSeq: number): number {
  return statements(db).countBetween.get({ after_seq: afterSeq, through_seq: throughSeq }) ?? 0;
}

/** The log's event at `seq` (where ClickHouse finds it: its sorting key, and its id), or undefined when gone or never stored. */
export function eventAtSeq(db: Db, seq: number): { site_id: string; ts: number; id: string } | undefined {
  return statements(db).atSeq.get({ seq });
}
