// The events a funnel reads (src/analysis/): one site's non-bot events in [start_ms, end_ms) up to a seq (the
// execution's watermark), of the step types only or of every type, read through events_by_site_ts in one pass.
// INDEXED BY: the range on (site_id, ts) is the whole point; with ANALYZE statistics the planner could pick
// events_by_site and walk every event of the site. Props (parsed from raw) are read only when a step needs them, and
// the enrichment columns only when asked (wide): each column of each row is a property better-sqlite3 builds, and
// on a month of a busy site the narrow read takes a fraction of the wide one's time.
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

/** The columns every read has. */
export interface NarrowFunnelEventRow {
  seq: number;
  anon_id: string;
  ts: number;
  type: string;
  path: string | null;
  /** The props object as JSON text (only when read with props), else null. */
  props: string | null;
}

/** The enrichment columns of a wide read. */
export interface FunnelEventDetails {
  site_id: string;
  is_internal: 0 | 1;
  source: string;
  utm_campaign: string | null;
  device_type: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
}

/** A row of either read: the details are there when it was wide. */
export type FunnelEventRow = NarrowFunnelEventRow & Partial<FunnelEventDetails>;

export interface FunnelEventsOptions {
  /** Read the enrichment columns (filters, breakdown, correlation). */
  wide: boolean;
  /** Read props (a step matches on them). */
  props: boolean;
}

const where = `site_id = :site_id AND ts >= :start_ms AND ts < :end_ms AND seq <= :max_seq AND is_bot = 0
  AND (is_internal = 0 OR :with_internal = 1) AND (:types IS NULL OR type IN (SELECT value FROM json_each(:types)))`;
const narrow = 'seq, anon_id, ts, type, path';
const wide = `${narrow}, site_id, is_internal, source, utm_campaign, device_type, browser, os, country, region, city`;
const sqlOf = (columns: string, props: boolean) => `SELECT ${columns}, ${props ? 'props' : 'NULL AS props'} FROM events INDEXED BY events_by_site_ts WHERE ${where}`;

/** Exported for the query-plan test. */
export const funnelEventsSql = sqlOf(narrow, false);

const statements = preparedOnce((db) => ({
  narrow: db.prepare<FunnelEventsParams, FunnelEventRow>(funnelEventsSql),
  narrowWithProps: db.prepare<FunnelEventsParams, FunnelEventRow>(sqlOf(narrow, true)),
  wide: db.prepare<FunnelEventsParams, FunnelEventRow>(sqlOf(wide, false)),
  wideWithProps: db.prepare<FunnelEventsParams, FunnelEventRow>(sqlOf(wide, true)),
}));

/**
 * The site's kept events of the range (unordered), one at a time: the caller may stop early.
 * @example for (const row of iterateFunnelEvents(db, { site_id: 'blog', start_ms, end_ms, max_seq: 120, with_internal: 0, types: '["pageview"]' }, { wide: false, props: false })) …
 */
export function iterateFunnelEvents(db: Db, params: FunnelEventsParams, options: FunnelEventsOptions): IterableIterator<FunnelEventRow> {
  const all = statements(db);
  const statement = options.wide ? (options.props ? all.wideWithProps : all.wide) : options.props ? all.narrowWithProps : all.narrow;
  return statement.iterate(params);
}
