// The rows journeys and page flow read (src/read-model/sqlite/visit-sequences.ts): one site's kept events in
// [start_ms, end_ms) up to the projector's position, bots left out, in (ts, seq) order through (site_id, ts) (an index
// ends with the rowid, seq, so the order needs no sort). Custom events are read too: they keep a visit going
// (CONTRACT section 4). As the funnels do (funnel-rows.ts), the scan fills a temporary table of this connection (in
// memory) once, then each column is read back as one plain value per row: far cheaper in better-sqlite3 than an
// array or object per row, and the event log's table lookups are paid once.
//
// A row holds the visitor number and flags as vid × 8 + flags: internal traffic (4), a pageview (2), passes the
// visit filters (1, tested in SQL on the event's own columns; a visit passes when its first event does); its ts
// relative to the scan's start (a small integer); the path, for pageviews only.
import type { Db } from '../../../db/open.ts';
import { preparedOnce, statementsBySql } from '../../../db/statements.ts';
import type { visitFilterColumns } from '../../../vocabulary/report-filters.ts';

export interface VisitPageScan {
  site_id: string;
  start_ms: number;
  end_ms: number;
  max_seq: number;
  with_internal: 0 | 1;
  /** The visit filters, by column (a fixed list, never input). */
  filters: readonly { column: (typeof visitFilterColumns)[keyof typeof visitFilterColumns]; values: readonly string[] }[];
}

/** Row i of the scan is index i of each column. */
export interface VisitPageRows {
  /** vid × flagSpan + flags. */
  visitorAndFlags: number[];
  /** ts − start_ms. */
  ts: number[];
  /** The path of a pageview, else null. */
  paths: (string | null)[];
}

export const flagSpan = 8;
export const internalFlag = 4;
export const pageviewFlag = 2;
export const passesFlag = 1;

/** The temporary table a scan fills (per connection). */
const visitPageRowsTableSql = `CREATE TEMP TABLE IF NOT EXISTS visit_page_rows (
  visitor_and_flags INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  path TEXT
)`;

/** The scan's SQL (filling visit_page_rows). Exported for the query-plan test. */
export function visitPageScanSql(filters: VisitPageScan['filters']): string {
  const passes = filters.length === 0 ? '1' : filters.map((filter, index) => `e.${filter.column} IN (SELECT value FROM json_each(:filter${index}))`).join(' AND ');
  return `INSERT INTO temp.visit_page_rows (visitor_and_flags, ts, path)
    SELECT ev.vid * ${flagSpan} + e.is_internal * ${internalFlag} + (e.type = 'pageview') * ${pageviewFlag} + (CASE WHEN ${passes} THEN ${passesFlag} ELSE 0 END),
           e.ts - :start_ms, CASE WHEN e.type = 'pageview' THEN e.path END
      FROM events e INDEXED BY events_by_site_ts JOIN event_visitors ev ON ev.seq = e.seq
     WHERE e.site_id = :site_id AND e.ts >= :start_ms AND e.ts < :end_ms AND e.seq <= :max_seq AND e.is_bot = 0
       AND (e.is_internal = 0 OR :with_internal = 1)
     ORDER BY e.ts, e.seq`;
}

const statements = preparedOnce((db) => {
  db.exec(visitPageRowsTableSql);
  return {
    /** The scan's statement, by SQL text (bounded: the variants are which of the seven visit filters are given). */
    scan: statementsBySql(db),
    visitorAndFlags: db.prepare('SELECT visitor_and_flags FROM temp.visit_page_rows ORDER BY rowid').pluck(),
    ts: db.prepare('SELECT ts FROM temp.visit_page_rows ORDER BY rowid').pluck(),
    path: db.prepare('SELECT path FROM temp.visit_page_rows ORDER BY rowid').pluck(),
    clear: db.prepare('DELETE FROM temp.visit_page_rows'),
  };
});

/**
 * Every row of the scan, in (ts, seq) order, as columns; the temporary table is emptied again in every case.
 * @example readVisitPageRows(db, { site_id: 'blog', start_ms, end_ms, max_seq: 120, with_internal: 0, filters: [] }).ts.length
 */
export function readVisitPageRows(db: Db, scan: VisitPageScan): VisitPageRows {
  const prepared = statements(db);
  const params: Record<string, string | number> = { site_id: scan.site_id, start_ms: scan.start_ms, end_ms: scan.end_ms, max_seq: scan.max_seq, with_internal: scan.with_internal };
  scan.filters.forEach((filter, index) => (params[`filter${index}`] = JSON.stringify(filter.values)));
  try {
    prepared.scan(visitPageScanSql(scan.filters)).run(params);
    return {
      visitorAndFlags: prepared.visitorAndFlags.all() as number[],
      ts: prepared.ts.all() as number[],
      paths: prepared.path.all() as (string | null)[],
    };
  } finally {
    prepared.clear.run();
  }
}
