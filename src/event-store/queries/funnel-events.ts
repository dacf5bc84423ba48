// The events a funnel reads (src/analysis/): one site's non-bot events in [start_ms, end_ms) up to a seq (the
// execution's watermark), of the step types only or of every type, read through events_by_site_ts in one pass.
// INDEXED BY: the range on (site_id, ts) is the whole point; with ANALYZE statistics the planner could pick
// events_by_site and walk every event of the site. Props (parsed from raw) are read only when a step needs them.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface FunnelEventsParams {
  site_id: string;
  start_ms: number;
  end_ms: number;
  max_seq: number;
  /** 1 keeps internal traffic, 0 leaves it out. */
  with_internal: 0 | 1;
  /** A JSON array of the event types to read, or null for every type. */
  types: string | null;
}

export interface FunnelEventRow {
  seq: number;
  site_id: string;
  anon_id: string;
  is_internal: 0 | 1;
  ts: number;
  type: string;
  path: string | null;
  source: string;
  utm_campaign: string | null;
  device_type: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  /** The props object as JSON text (only when read with props), else null. */
  props: string | null;
}

const where = `site_id = :site_id AND ts >= :start_ms AND ts < :end_ms AND seq <= :max_seq AND is_bot = 0
  AND (is_internal = 0 OR :with_internal = 1) AND (:types IS NULL OR type IN (SELECT value FROM json_each(:types)))`;
const columns = 'seq, site_id, anon_id, is_internal, ts, type, path, source, utm_campaign, device_type, browser, os, country, region, city';

/** Exported for the query-plan test. */
export const funnelEventsSql = `SELECT ${columns}, NULL AS props FROM events INDEXED BY events_by_site_ts WHERE ${where}`;
const funnelEventsWithPropsSql = `SELECT ${columns}, props FROM events INDEXED BY events_by_site_ts WHERE ${where}`;

const statements = preparedOnce((db) => ({
  plain: db.prepare<FunnelEventsParams, FunnelEventRow>(funnelEventsSql),
  withProps: db.prepare<FunnelEventsParams, FunnelEventRow>(funnelEventsWithPropsSql),
}));

/** The site's kept events of the range (unordered), with props when `withProps`. */
export function listFunnelEvents(db: Db, params: FunnelEventsParams, withProps: boolean): FunnelEventRow[] {
  return (withProps ? statements(db).withProps : statements(db).plain).all(params);
}
