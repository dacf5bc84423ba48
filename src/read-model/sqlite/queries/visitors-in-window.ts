// The distinct visitors (anon_ids) of a scope's events in a time window, bots left out, internal traffic as asked
// (the alerts' "visitors in the last hour"). Read through the (site_id, ts) index.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface VisitorsInWindowParams {
  /** JSON array of the scope's site ids. */
  site_ids: string;
  start_ms: number;
  end_ms: number;
  with_internal: 0 | 1;
}

const statements = preparedOnce((db) => ({
  count: db.prepare<VisitorsInWindowParams, { visitors: number }>(
    `SELECT count(DISTINCT e.anon_id) AS visitors FROM events e
     WHERE e.site_id IN (SELECT value FROM json_each(:site_ids)) AND e.ts >= :start_ms AND e.ts < :end_ms
       AND e.is_bot = 0 AND (e.is_internal = 0 OR :with_internal = 1) AND e.anon_id IS NOT NULL`,
  ),
}));

export function countVisitorsInWindow(db: Db, params: VisitorsInWindowParams): number {
  return statements(db).count.get(params)!.visitors;
}
