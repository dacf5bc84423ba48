// The engagement events of a span of a scope's sites, with their page and props' two figures, under the same
// filters as every date-bounded event read (event-filter.ts). The JSON paths are constants, never built from input.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';
import { type EventFilterParams, eventFilterSql } from './event-filter.ts';

export interface EngagementEventParams extends EventFilterParams {
  /** JSON array of the scope's site ids. */
  site_ids: string;
  start_ms: number;
  end_ms: number;
  /** JSON array of the paths asked about. */
  paths: string;
  /** JSON array of the only event seqs to count (a goal's visits), or null for all. */
  only_seqs: string | null;
}

export interface EngagementEventRow {
  path: string;
  query: string | null;
  scroll_depth: unknown;
  engaged_ms: unknown;
}

/**
 * The read's SQL (exported for the query-plan test). `type <> 'pageview'` (implied by the type asked) lets the partial
 * index of the other events by (site_id, type, ts) serve it: without it the range's every event row was read for its
 * type (280 ms of a month of a 10M-event site for none found, a quarter of a filtered dashboard; docs/reports.md,
 * "Narrow visits").
 */
export const engagementEventsSql = `SELECT e.path, e.query,
       CASE WHEN json_valid(e.raw) THEN json_extract(e.raw, '$.props.scroll_depth') END AS scroll_depth,
       CASE WHEN json_valid(e.raw) THEN json_extract(e.raw, '$.props.engaged_ms') END AS engaged_ms
     FROM events e
     WHERE e.site_id IN (SELECT value FROM json_each(:site_ids)) AND e.type = 'engagement' AND e.type <> 'pageview' AND e.ts >= :start_ms AND e.ts < :end_ms
       AND e.path IN (SELECT value FROM json_each(:paths)) AND ${eventFilterSql}
       AND (:only_seqs IS NULL OR e.seq IN (SELECT value FROM json_each(:only_seqs)))`;

const statements = preparedOnce((db) => ({
  list: db.prepare<EngagementEventParams, EngagementEventRow>(engagementEventsSql),
}));

export function listEngagementEvents(db: Db, params: EngagementEventParams): EngagementEventRow[] {
  return statements(db).list.all(params);
}
