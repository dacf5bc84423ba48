// The newest stored event of a site (rebuilding its freshness watermark).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  newest: db.prepare<[string], { max_seq: number | null; max_received_at: number | null }>(
    'SELECT max(seq) AS max_seq, max(received_at) AS max_received_at FROM events WHERE site_id = ?',
  ),
  sitesWithEvents: db.prepare<[], string>('SELECT DISTINCT site_id FROM events').pluck(),
}));

export function findSiteNewestEvent(db: Db, siteId: string): { max_seq: number; max_received_at: number } | undefined {
  const row = statements(db).newest.get(siteId);
  return row && row.max_seq !== null ? { max_seq: row.max_seq, max_received_at: row.max_received_at! } : undefined;
}

export function listSitesWithEvents(db: Db): string[] {
  return statements(db).sitesWithEvents.all() as unknown as string[];
}
