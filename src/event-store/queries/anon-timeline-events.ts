// One anon_id's events on a site in [not_before, before), newest first (ts, then seq), read backwards along
// events_by_site_anon (site_id, anon_id, ts; seq is the rowid the index ends with), so no sort is needed.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface AnonTimelineEventsParams {
  site_id: string;
  anon_id: string;
  /** Inclusive lower bound of ts, epoch ms. */
  not_before: number;
  /** Exclusive upper bound of ts, epoch ms. */
  before: number;
  /** At most this many rows; -1 for all. */
  limit: number;
}

/** The columns a timeline shows: never raw, props, the user agent or anything else derived from them. */
export interface AnonTimelineEventRow {
  seq: number;
  id: string;
  type: string;
  ts: number;
  anon_id: string;
  country: string | null;
  city: string | null;
  browser: string | null;
  os: string | null;
  device_type: string | null;
  /** The text received: url and referrer are read from it, nothing else (src/event-store/wire-fields.ts). */
  raw: string;
}

/**
 * INDEXED BY: with a ts range, ORDER BY and LIMIT the planner (without ANALYZE statistics) prefers
 * events_by_site_ts and walks every event of the site in the range. Exported for the query-plan test.
 */
export const anonTimelineEventsSql = `SELECT seq, id, type, ts, anon_id, country, city, browser, os, device_type, raw
  FROM events INDEXED BY events_by_site_anon
  WHERE site_id = :site_id AND anon_id = :anon_id AND ts >= :not_before AND ts < :before
  ORDER BY ts DESC, seq DESC LIMIT :limit`;

const statements = preparedOnce((db) => ({
  events: db.prepare<AnonTimelineEventsParams, AnonTimelineEventRow>(anonTimelineEventsSql),
}));

export function listAnonTimelineEvents(db: Db, params: AnonTimelineEventsParams): AnonTimelineEventRow[] {
  return statements(db).events.all(params);
}
