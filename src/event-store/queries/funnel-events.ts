// The events a funnel reads (src/analysis/): one site's non-bot events in [start_ms, end_ms) up to a seq (the
// execution's watermark), of the steps only (each step's type and path, tested in SQL) or of every type, read
// through events_by_site_ts in one pass. Testing the steps in SQL matters: a funnel that starts at one page of a busy
// site would otherwise build a row for every pageview of the range (and read each one's anon_id from raw).
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
}

/** What one step asks of an event in SQL: its type and, when given, its path (exact, or a prefix). */
export interface FunnelStepFilter {
  type: string;
  path: string | null;
  prefix: boolean;
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

const kept = `site_id = :site_id AND ts >= :start_ms AND ts < :end_ms AND seq <= :max_seq AND is_bot = 0
  AND (is_internal = 0 OR :with_internal = 1)`;
const narrow = 'seq, anon_id, ts, type, path';
const wide = `${narrow}, site_id, is_internal, source, utm_campaign, device_type, browser, os, country, region, city`;
const stepMatches = (index: number) =>
  `(type = :type${index} AND (:path${index} IS NULL OR CASE WHEN :prefix${index} = 1 THEN substr(path, 1, length(:path${index})) = :path${index} ELSE path = :path${index} END))`;
/** The SQL of a read of `steps` step filters (0: every type). */
const sqlOf = (columns: string, props: boolean, steps: number) =>
  `SELECT ${columns}, ${props ? 'props' : 'NULL AS props'} FROM events INDEXED BY events_by_site_ts WHERE ${kept}` +
  (steps === 0 ? '' : ` AND (${Array.from({ length: steps }, (_, index) => stepMatches(index)).join(' OR ')})`);

/** Exported for the query-plan test: a two-step funnel's read. */
export const funnelEventsSql = sqlOf(narrow, false, 2);

type Statement = ReturnType<Db['prepare']>;

/** One statement per (columns, props, number of steps): at most 4 × 13, prepared when first used. */
const statements = preparedOnce((db) => {
  const prepared = new Map<string, Statement>();
  return (options: FunnelEventsOptions, steps: number): Statement => {
    const key = `${options.wide ? 'wide' : 'narrow'}/${options.props}/${steps}`;
    let statement = prepared.get(key);
    if (!statement) {
      statement = db.prepare(sqlOf(options.wide ? wide : narrow, options.props, steps));
      prepared.set(key, statement);
    }
    return statement;
  };
});

/**
 * The site's kept events of the range (unordered) that match one of `steps` (every event when null), one at a time:
 * the caller may stop early.
 * @example for (const row of iterateFunnelEvents(db, { site_id: 'blog', start_ms, end_ms, max_seq: 120, with_internal: 0 }, [{ type: 'pageview', path: '/pricing', prefix: false }], { wide: false, props: false })) …
 */
export function iterateFunnelEvents(
  db: Db,
  params: FunnelEventsParams,
  steps: readonly FunnelStepFilter[] | null,
  options: FunnelEventsOptions,
): IterableIterator<FunnelEventRow> {
  const bound: Record<string, string | number | null> = { ...params };
  steps?.forEach((step, index) => {
    bound[`type${index}`] = step.type;
    bound[`path${index}`] = step.path;
    bound[`prefix${index}`] = step.prefix ? 1 : 0;
  });
  return statements(db)(options, steps?.length ?? 0).iterate(bound) as IterableIterator<FunnelEventRow>;
}

const detailsStatement = preparedOnce((db) =>
  db.prepare<[number], FunnelEventDetails>(
    'SELECT site_id, is_internal, source, utm_campaign, device_type, browser, os, country, region, city FROM events WHERE seq = ?',
  ),
);

/**
 * The enrichment columns of one event (the first step of a person's attempt, for the correlation's factors).
 * @example readFunnelEventDetails(db, 120)?.browser // 'Firefox'
 */
export function readFunnelEventDetails(db: Db, seq: number): FunnelEventDetails | undefined {
  return detailsStatement(db).get(seq);
}
