// The visits of a set of anon_ids on one site that start in a time span (attribution's touchpoints), in
// chronological order; internal traffic left out.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface VisitsOfAnonIdsParams {
  site_id: string;
  /** JSON array of anon_ids. */
  anon_ids: string;
  /** Inclusive. */
  start_from: number;
  /** Exclusive. */
  start_before: number;
}

export interface TouchpointVisitRow {
  anon_id: string;
  start_ts: number;
  source: string;
  utm_medium: string | null;
  utm_campaign: string | null;
}

const statements = preparedOnce((db) => ({
  visits: db.prepare<VisitsOfAnonIdsParams, TouchpointVisitRow>(
    `SELECT anon_id, start_ts, source, utm_medium, utm_campaign FROM sessions
      WHERE site_id = :site_id AND anon_id IN (SELECT value FROM json_each(:anon_ids)) AND is_internal = 0
        AND start_ts >= :start_from AND start_ts < :start_before
      ORDER BY start_ts, anon_id`,
  ),
}));

export function listVisitsOfAnonIds(db: Db, params: VisitsOfAnonIdsParams): TouchpointVisitRow[] {
  return statements(db).visits.all(params);
}
