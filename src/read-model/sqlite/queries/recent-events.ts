// The events of one site in a recent window by event time (realtime-v2): who, when, and whether a pageview.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface RecentEventRow {
  anon_id: string;
  ts: number;
  type: string;
}

const statements = preparedOnce((db) => ({
  recent: db.prepare<{ site_id: string; after_ms: number; upto_ms: number }, RecentEventRow>(
    'SELECT anon_id, ts, type FROM events WHERE site_id = :site_id AND ts > :after_ms AND ts <= :upto_ms AND is_bot = 0 AND is_internal = 0',
  ),
}));

/** A site's counted events with after_ms < ts <= upto_ms (bots and internal traffic left out). */
export function listRecentEvents(db: Db, params: { site_id: string; after_ms: number; upto_ms: number }): RecentEventRow[] {
  return statements(db).recent.all(params);
}
