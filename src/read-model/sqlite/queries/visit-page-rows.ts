// The rows journeys and page flow read (src/read-model/sqlite/visit-sequences.ts): one site's kept events in
// [start_ms, end_ms) up to the projector's position, bots left out, in (ts, seq) order through (site_id, ts) (an index
// ends with the rowid, seq, so the order needs no sort). Each row is [visitor number, ts, flags, path]: flags holds
// whether the event is internal traffic (4), a pageview (2) and passes the visit filters (1, tested in SQL on the
// event's own columns; a visit passes when its first event does); path only for pageviews. Custom events are read
// too: they keep a visit going (CONTRACT section 4). One value array per row (.raw()): far cheaper than an object.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';
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

/** [vid, ts, flags, path or null]. */
export type VisitPageRow = [number, number, number, string | null];

export const internalFlag = 4;
export const pageviewFlag = 2;
export const passesFlag = 1;

/** The scan's SQL. Exported for the query-plan test. */
export function visitPageScanSql(filters: VisitPageScan['filters']): string {
  const passes = filters.length === 0 ? '1' : filters.map((filter, index) => `e.${filter.column} IN (SELECT value FROM json_each(:filter${index}))`).join(' AND ');
  return `SELECT ev.vid, e.ts, e.is_internal * ${internalFlag} + (e.type = 'pageview') * ${pageviewFlag} + (CASE WHEN ${passes} THEN ${passesFlag} ELSE 0 END),
                 CASE WHEN e.type = 'pageview' THEN e.path END
      FROM events e INDEXED BY events_by_site_ts JOIN event_visitors ev ON ev.seq = e.seq
     WHERE e.site_id = :site_id AND e.ts >= :start_ms AND e.ts < :end_ms AND e.seq <= :max_seq AND e.is_bot = 0
       AND (e.is_internal = 0 OR :with_internal = 1)
     ORDER BY e.ts, e.seq`;
}

type Statement = ReturnType<Db['prepare']>;

const statements = preparedOnce(() => new Map<string, Statement>());

/**
 * Every row of the scan, in (ts, seq) order.
 * @example listVisitPageRows(db, { site_id: 'blog', start_ms, end_ms, max_seq: 120, with_internal: 0, filters: [] })
 */
export function listVisitPageRows(db: Db, scan: VisitPageScan): VisitPageRow[] {
  const sql = visitPageScanSql(scan.filters);
  const cache = statements(db);
  let statement = cache.get(sql);
  if (!statement) {
    // Bounded: the variants are which of the seven visit filters are given.
    if (cache.size >= 256) cache.clear();
    statement = db.prepare(sql).raw();
    cache.set(sql, statement);
  }
  const params: Record<string, string | number> = { site_id: scan.site_id, start_ms: scan.start_ms, end_ms: scan.end_ms, max_seq: scan.max_seq, with_internal: scan.with_internal };
  scan.filters.forEach((filter, index) => (params[`filter${index}`] = JSON.stringify(filter.values)));
  return statement.all(params) as VisitPageRow[];
}
