// The rows a funnel reads (src/analysis/population.ts): one site's kept events in [start_ms, end_ms) up to a seq (the
// execution's watermark) that match a step, in (ts, seq) order, read column by column. Each read is one number (or
// string) per row: better-sqlite3 builds an array or object per row far more slowly than a plain value (on a month
// of 720,000 pageviews, two plucked numbers took 480 ms where one row of four columns took 900 ms). Every read of
// one funnel runs the same scan (same bounds, same step test, same order) in the same snapshot, so the n-th value of
// each belongs to the same event.
//
// The first read is the visitor number (event_visitors, written by the projector with the visitor index) and the
// steps the event matches, tested in SQL: vid × 4096 + mask, with vid -1 for an event the projector has not passed
// (only while it rebuilds past an execution's watermark; its anon_id is read instead). INDEXED BY: the (site_id, ts)
// range is the whole point; with ANALYZE statistics the planner could walk every event of the site instead.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import { visitFilterColumns } from '../../http/common-params.ts';

/** What one step asks of an event in SQL: its type and, when given, its path (exact, or a prefix). */
export interface FunnelStepFilter {
  type: string;
  path: string | null;
  prefix: boolean;
}

/** A filter on the first step's event: its column holds one of the values. */
export type FunnelFilterColumn = (typeof visitFilterColumns)[keyof typeof visitFilterColumns] | 'path';

export interface FunnelScan {
  site_id: string;
  start_ms: number;
  end_ms: number;
  /** The first step's event must be before this (the range's end; later events only complete an attempt). */
  range_end_ms: number;
  max_seq: number;
  /** 1 keeps internal traffic, 0 leaves it out. */
  with_internal: 0 | 1;
  /** At most this many rows are read (the caller asks for one more than it accepts). */
  limit: number;
  steps: readonly FunnelStepFilter[];
  /** The first step's filters, by column. */
  filters: readonly { column: FunnelFilterColumn; values: readonly string[] }[];
}

/** The multiplier of the visitor number in the first read: the mask of up to 12 steps fits below it. */
export const maskSpan = 4096;

/**
 * The ts read returns ts - tsBaseOf(scan): within about 24 days either side of the base the values are small
 * integers, which better-sqlite3 hands over without a heap allocation each (a month has hundreds of thousands).
 */
export function tsBaseOf(scan: Pick<FunnelScan, 'start_ms'>): number {
  return scan.start_ms + 2 ** 31;
}

/** Which of a scan's rows a read returns, and what. */
type Read =
  | { kind: 'visitorAndMask' }
  /** ts - tsBaseOf(scan). */
  | { kind: 'ts' }
  | { kind: 'seq' }
  /** The anon_id of each row the projector has not passed (vid -1 in the first read). */
  | { kind: 'unprojectedAnonId' }
  /** The props of each row that matches one of `steps` (as a candidate of a step that tests props). */
  | { kind: 'props'; steps: readonly number[] }
  /** The value of `column` for each row that may start the funnel (bit 0 of the mask). */
  | { kind: 'startColumn'; column: string };

const stepTest = (index: number) =>
  `(e.type = :type${index} AND (:path${index} IS NULL OR CASE WHEN :prefix${index} = 1 THEN substr(e.path, 1, length(:path${index})) = :path${index} ELSE e.path = :path${index} END))`;

/** Step 0 also needs the first step inside the range and the filters (on columns from a fixed list, never input). */
function startTest(filters: FunnelScan['filters']): string {
  const parts = [stepTest(0), 'e.ts < :range_end_ms', ...filters.map((filter, index) => `e.${filter.column} IN (SELECT value FROM json_each(:filter${index}))`)];
  return `(${parts.join(' AND ')})`;
}

const testOf = (scan: FunnelScan, step: number) => (step === 0 ? startTest(scan.filters) : stepTest(step));

/** The SQL of one read of a scan. Exported for the query-plan test. */
export function funnelReadSql(scan: Pick<FunnelScan, 'steps' | 'filters'>, read: Read): string {
  const tests = scan.steps.map((_, step) => testOf(scan as FunnelScan, step));
  const anyStep = `(${tests.join(' OR ')})`;
  const kept = `e.site_id = :site_id AND e.ts >= :start_ms AND e.ts < :end_ms AND e.seq <= :max_seq AND e.is_bot = 0
    AND (e.is_internal = 0 OR :with_internal = 1)`;
  const from = 'FROM events e INDEXED BY events_by_site_ts';
  const order = 'ORDER BY e.ts, e.seq LIMIT :limit';
  switch (read.kind) {
    case 'visitorAndMask': {
      const mask = tests.map((test, step) => `(CASE WHEN ${test} THEN ${1 << step} ELSE 0 END)`).join(' | ');
      return `SELECT coalesce(ev.vid, -1) * ${maskSpan} + (${mask}) ${from} LEFT JOIN event_visitors ev ON ev.seq = e.seq WHERE ${kept} AND ${anyStep} ${order}`;
    }
    case 'ts':
      return `SELECT e.ts - :ts_base ${from} WHERE ${kept} AND ${anyStep} ${order}`;
    case 'seq':
      return `SELECT e.seq ${from} WHERE ${kept} AND ${anyStep} ${order}`;
    case 'unprojectedAnonId':
      return `SELECT e.anon_id ${from} LEFT JOIN event_visitors ev ON ev.seq = e.seq WHERE ${kept} AND ${anyStep} AND ev.vid IS NULL ${order}`;
    case 'props':
      return `SELECT e.props ${from} WHERE ${kept} AND (${read.steps.map((step) => tests[step]).join(' OR ')}) ${order}`;
    case 'startColumn':
      return `SELECT e.${read.column} ${from} WHERE ${kept} AND ${tests[0]} ${order}`;
  }
}

function paramsOf(scan: FunnelScan): Record<string, string | number | null> {
  const params: Record<string, string | number | null> = {
    site_id: scan.site_id,
    start_ms: scan.start_ms,
    end_ms: scan.end_ms,
    range_end_ms: scan.range_end_ms,
    max_seq: scan.max_seq,
    with_internal: scan.with_internal,
    limit: scan.limit,
    ts_base: tsBaseOf(scan),
  };
  scan.steps.forEach((step, index) => {
    params[`type${index}`] = step.type;
    params[`path${index}`] = step.path;
    params[`prefix${index}`] = step.prefix ? 1 : 0;
  });
  scan.filters.forEach((filter, index) => (params[`filter${index}`] = JSON.stringify(filter.values)));
  return params;
}

type Statement = ReturnType<Db['prepare']>;

/** Prepared statements by SQL text, when first used (a funnel has 2-12 steps, a few filters and six reads). */
const statements = preparedOnce((db) => {
  const prepared = new Map<string, Statement>();
  return (sql: string): Statement => {
    let statement = prepared.get(sql);
    if (!statement) {
      // Bounded: the filters' number and the steps' props make the variants; past this many, start again.
      if (prepared.size >= 256) prepared.clear();
      statement = db.prepare(sql).pluck();
      prepared.set(sql, statement);
    }
    return statement;
  };
});

/**
 * One read of the scan: a value per row it selects, in (ts, seq) order.
 * @example readFunnelColumn(db, scan, { kind: 'ts' }) // [1767225600000, …]
 */
export function readFunnelColumn<T extends number | string | null>(db: Db, scan: FunnelScan, read: Read): T[] {
  return statements(db)(funnelReadSql(scan, read)).all(paramsOf(scan)) as T[];
}
