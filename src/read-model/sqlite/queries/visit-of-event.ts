// The visit holding an event (a visitor's latest visit starting at or before it, on the same site and traffic
// kind): its acquisition values and entry, for the funnel correlation (src/read-model/sqlite/attempt-events.ts).
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface VisitOfEventParams {
  site_id: string;
  anon_id: string;
  is_internal: 0 | 1;
  ts: number;
}

export interface VisitOfEventRow {
  entry_seq: number;
  entry_path: string | null;
  source: string;
  utm_campaign: string | null;
}

const statements = preparedOnce((db) => ({
  visit: db.prepare<VisitOfEventParams, VisitOfEventRow>(
    `SELECT entry_seq, entry_path, source, utm_campaign FROM sessions
      WHERE site_id = :site_id AND anon_id = :anon_id AND is_internal = :is_internal AND start_ts <= :ts AND end_ts >= :ts
      ORDER BY start_ts DESC LIMIT 1`,
  ),
}));

/**
 * The projected visit holding the event, or undefined when the projector has none (yet).
 * @example findVisitOfEvent(db, { site_id: 'blog', anon_id: 'a1', is_internal: 0, ts })?.source
 */
export function findVisitOfEvent(db: Db, params: VisitOfEventParams): VisitOfEventRow | undefined {
  return statements(db).visit.get(params);
}
