// Raw events for the exact fallback computation (src/reports/raw/): a window of the scope's non-bot events and the
// visitors with events newer than a watermark. One visitor's events in a window are read through the projector's
// visitor index (src/projector/queries/visitor-events.ts).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { LoggedEvent } from '../stored-event.ts';

/** The columns a from-scratch visit computation needs (the query below selects exactly these). */
export type RawEventRow = Pick<
  LoggedEvent,
  | 'seq' | 'site_id' | 'anon_id' | 'is_internal' | 'ts' | 'type' | 'path' | 'query' | 'source' | 'utm_source' | 'utm_medium'
  | 'utm_campaign' | 'device_type' | 'browser' | 'os' | 'country' | 'region' | 'city' | 'revenue_minor' | 'revenue_currency'
>;

export interface WindowParams {
  site_id: string;
  start_ms: number;
  end_ms: number;
  /** 1 keeps internal traffic, 0 leaves it out. */
  with_internal: number;
  max_seq: number;
}

/** The columns of RawEventRow, for queries that select them. */
export const rawEventColumns = `seq, site_id, anon_id, is_internal, ts, type, path, query, source, utm_source, utm_medium, utm_campaign,
  device_type, browser, os, country, region, city, revenue_minor, revenue_currency`;
const kept = 'is_bot = 0 AND (is_internal = 0 OR :with_internal = 1) AND seq <= :max_seq';

const statements = preparedOnce((db) => ({
  window: db.prepare<WindowParams, RawEventRow>(
    `SELECT ${rawEventColumns} FROM events WHERE site_id = :site_id AND ts >= :start_ms AND ts < :end_ms AND ${kept}`,
  ),
  newerVisitors: db.prepare<{ site_id: string; after_seq: number; upto_seq: number }, { anon_id: string }>(
    'SELECT DISTINCT anon_id FROM events WHERE site_id = :site_id AND seq > :after_seq AND seq <= :upto_seq AND is_bot = 0',
  ),
}));

/** The scope's events with start_ms <= ts < end_ms (one site). */
export function listWindowEvents(db: Db, params: WindowParams): RawEventRow[] {
  return statements(db).window.all(params);
}

/** anon_ids of a site with events stored after `afterSeq` and up to `uptoSeq`. */
export function listVisitorsNewerThan(db: Db, siteId: string, afterSeq: number, uptoSeq: number): string[] {
  return statements(db).newerVisitors.all({ site_id: siteId, after_seq: afterSeq, upto_seq: uptoSeq }).map((row) => row.anon_id);
}
