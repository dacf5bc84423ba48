// One site's events of a time span in ingest order (seq) after a given seq: the rows of list-v2.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import { type EventFilterParams, eventFilterSql } from './event-filter.ts';

/** The stored columns an event list shows (list-v2 and stream-v2). */
export interface EventRow {
  seq: number;
  id: string;
  type: string;
  ts: number;
  received_at: number;
  anon_id: string;
  path: string | null;
  source: string;
  country: string | null;
  region: string | null;
  city: string | null;
  browser: string | null;
  os: string | null;
  device_type: string | null;
  /** The text received: url, referrer and props are read from it (src/event-store/wire-fields.ts). */
  raw: string;
}

export const eventRowColumns = `e.seq, e.id, e.type, e.ts, e.received_at, e.anon_id, e.path, e.source, e.country, e.region,
  e.city, e.browser, e.os, e.device_type, e.raw`;

export interface ListEventRowsParams extends EventFilterParams {
  site_id: string;
  after_seq: number;
  /** Event time bounds, epoch ms: start_ms <= ts < end_ms. */
  start_ms: number;
  end_ms: number;
  limit: number;
}

const statements = preparedOnce((db) => ({
  // `+e.ts` keeps the planner on (site_id, seq): the rows come in seq order and the scan stops at the limit.
  list: db.prepare<ListEventRowsParams, EventRow>(
    `SELECT ${eventRowColumns} FROM events e
     WHERE e.site_id = :site_id AND e.seq > :after_seq AND +e.ts >= :start_ms AND +e.ts < :end_ms AND ${eventFilterSql}
     ORDER BY e.seq LIMIT :limit`,
  ),
}));

export function listEventRows(db: Db, params: ListEventRowsParams): EventRow[] {
  return statements(db).list.all(params);
}
