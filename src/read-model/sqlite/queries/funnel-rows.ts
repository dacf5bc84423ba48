// The rows a funnel reads (src/read-model/sqlite/funnel-population.ts): one site's kept events in [start_ms, end_ms) up to a seq (the
// execution's watermark) that match a step, in (ts, seq) order. They are scanned once through (site_id, ts) into a
// temporary table of this connection (in memory: temp_store is MEMORY), then read from it column by column, one plain
// value per row per read: better-sqlite3 builds an array or object per row far more slowly than a single value (on a
// month of 720,000 pageviews, one three-column read took 850 ms, the scan and three column reads 420 ms), and scanning
// the event log once per column repeats its table lookups (a funnel of one page still tests every event of the month).
//
// Each row holds the visitor number (event_visitors, written by the projector with the visitor index) and the steps
// the event matches, tested in SQL, as vid × 4096 + mask, with vid -1 for an event the projector has not passed (only
// while it rebuilds past an execution's watermark: its anon_id is kept instead); its ts relative to a base near the
// range (small integers cost the heap nothing); its seq; and, only where asked, its props and the breakdown's column.
// INDEXED BY: the (site_id, ts) range is the whole point; with ANALYZE statistics the planner could walk every event
// of the site instead.
import type { Db } from '../../../db/open.ts';
import { preparedOnce, statementsBySql } from '../../../db/statements.ts';
import type { filterColumns } from '../../../vocabulary/report-filters.ts';

/** What one step asks of an event in SQL: its type and, when given, its path (exact, or a prefix). */
export interface FunnelStepFilter {
  type: string;
  path: string | null;
  prefix: boolean;
}

export interface FunnelScan {
  site_id: string;
  start_ms: number;
  end_ms: number;
  /** The first step's event must be before this (the range's end; later events only complete an attempt). */
  range_end_ms: number;
  max_seq: number;
  /** 1 keeps internal traffic, 0 leaves it out. */
  with_internal: 0 | 1;
  /** At most this many rows are kept (the caller asks for one more than it accepts). */
  limit: number;
  steps: readonly FunnelStepFilter[];
  /** The first step's filters, by column (a fixed list, never input). */
  filters: readonly { column: (typeof filterColumns)[keyof typeof filterColumns]; values: readonly string[] }[];
  /** The steps whose props are tested (in JavaScript): their candidates keep their props. */
  propsSteps: readonly number[];
  /** The column kept for the rows that may start the funnel (a breakdown's), or null. */
  startColumn: 'device_type' | 'browser' | 'os' | 'country' | 'source' | 'utm_campaign' | null;
}

/** The multiplier of the visitor number in `visitorAndMask`: the mask of up to 12 steps fits below it. */
export const maskSpan = 4096;

/** ts is kept as ts - tsBaseOf(scan): within about 24 days either side of the base, a small integer. */
export function tsBaseOf(scan: Pick<FunnelScan, 'start_ms'>): number {
  return scan.start_ms + 2 ** 31;
}

const stepTest = (index: number) =>
  `(e.type = :type${index} AND (:path${index} IS NULL OR CASE WHEN :prefix${index} = 1 THEN substr(e.path, 1, length(:path${index})) = :path${index} ELSE e.path = :path${index} END))`;

/** Step 0 also needs the first step inside the range and the filters. */
function startTest(filters: FunnelScan['filters']): string {
  const parts = [stepTest(0), 'e.ts < :range_end_ms', ...filters.map((filter, index) => `e.${filter.column} IN (SELECT value FROM json_each(:filter${index}))`)];
  return `(${parts.join(' AND ')})`;
}

/** The temporary table a scan fills (per connection). Exported for the query-plan test. */
export const funnelRowsTableSql = `CREATE TEMP TABLE IF NOT EXISTS funnel_rows (
  visitor_and_mask INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  anon_id TEXT,   -- only where the projector has not passed the event
  props TEXT,     -- only for a candidate of a step testing props ('null' when it has none)
  start_value TEXT
)`;

/** The scan's SQL (filling funnel_rows). Exported for the query-plan test. */
export function funnelScanSql(scan: Pick<FunnelScan, 'steps' | 'filters' | 'propsSteps' | 'startColumn'>): string {
  const tests = scan.steps.map((_, step) => (step === 0 ? startTest(scan.filters) : stepTest(step)));
  const mask = tests.map((test, step) => `(CASE WHEN ${test} THEN ${1 << step} ELSE 0 END)`).join(' | ');
  const props = scan.propsSteps.length === 0 ? 'NULL' : `CASE WHEN ${scan.propsSteps.map((step) => tests[step]).join(' OR ')} THEN coalesce(e.props, 'null') END`;
  const startValue = scan.startColumn === null ? 'NULL' : `CASE WHEN ${tests[0]} THEN e.${scan.startColumn} END`;
  return `INSERT INTO temp.funnel_rows (visitor_and_mask, ts, seq, anon_id, props, start_value)
    SELECT coalesce(ev.vid, -1) * ${maskSpan} + (${mask}), e.ts - :ts_base, e.seq, CASE WHEN ev.vid IS NULL THEN e.anon_id END, ${props}, ${startValue}
      FROM events e INDEXED BY events_by_site_ts LEFT JOIN event_visitors ev ON ev.seq = e.seq
     WHERE e.site_id = :site_id AND e.ts >= :start_ms AND e.ts < :end_ms AND e.seq <= :max_seq AND e.is_bot = 0
       AND (e.is_internal = 0 OR :with_internal = 1) AND (${tests.join(' OR ')})
     ORDER BY e.ts, e.seq LIMIT :limit`;
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

const statements = preparedOnce((db) => {
  db.exec(funnelRowsTableSql);
  return {
    /** The scan's statement, by SQL text (bounded: the steps' number, filters, props and breakdown make the variants). */
    scan: statementsBySql(db),
    visitorAndMask: db.prepare('SELECT visitor_and_mask FROM temp.funnel_rows ORDER BY rowid').pluck(),
    ts: db.prepare('SELECT ts FROM temp.funnel_rows ORDER BY rowid').pluck(),
    seq: db.prepare('SELECT seq FROM temp.funnel_rows ORDER BY rowid').pluck(),
    first: db.prepare('SELECT min(rowid) FROM temp.funnel_rows').pluck(),
    anonId: db.prepare('SELECT rowid, anon_id FROM temp.funnel_rows WHERE anon_id IS NOT NULL ORDER BY rowid').raw(),
    props: db.prepare('SELECT rowid, props FROM temp.funnel_rows WHERE props IS NOT NULL ORDER BY rowid').raw(),
    startValue: db.prepare('SELECT rowid, start_value FROM temp.funnel_rows WHERE start_value IS NOT NULL ORDER BY rowid').raw(),
    clear: db.prepare('DELETE FROM temp.funnel_rows'),
  };
});

/** The rows of one scan, as columns (row i is the scan's i-th event). */
export interface FunnelRows {
  /** vid × maskSpan + mask; vid -1 where anonIds holds the anon_id instead. */
  visitorAndMask: number[];
  /** ts - tsBaseOf(scan). */
  ts: number[];
  seq: number[] | null;
  /** [row, value] of the rows that have one. */
  anonIds: [number, string][];
  props: [number, string][];
  startValues: [number, string][];
}

/**
 * Scans the site once into funnel_rows and reads it back; `tooMany` is thrown (before any other read) when the scan
 * reaches `limit`. The table is emptied again in every case.
 * @example readFunnelRows(db, scan, { withSeq: false, tooMany: () => new Error('cap') }).ts.length
 */
export function readFunnelRows(db: Db, scan: FunnelScan, options: { withSeq: boolean; tooMany: () => Error }): FunnelRows {
  const prepared = statements(db);
  try {
    const { changes } = prepared.scan(funnelScanSql(scan)).run(paramsOf(scan));
    if (changes >= scan.limit) throw options.tooMany();
    const first = (prepared.first.get() as number | null) ?? 1;
    const positioned = (rows: unknown[][]) => rows.map(([rowid, value]) => [(rowid as number) - first, value as string] as [number, string]);
    return {
      visitorAndMask: prepared.visitorAndMask.all() as number[],
      ts: prepared.ts.all() as number[],
      seq: options.withSeq ? (prepared.seq.all() as number[]) : null,
      anonIds: positioned(prepared.anonId.all() as unknown[][]),
      props: scan.propsSteps.length > 0 ? positioned(prepared.props.all() as unknown[][]) : [],
      startValues: scan.startColumn !== null ? positioned(prepared.startValue.all() as unknown[][]) : [],
    };
  } finally {
    prepared.clear.run();
  }
}
