// Visit rows of one site, for rebuilding its rollups (all of them, in pages) or forgetting one visitor.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { SessionRow } from './visit-rows.ts';

const statements = preparedOnce((db) => ({
  ofVisitor: db.prepare<[string, string], SessionRow>('SELECT * FROM sessions WHERE site_id = ? AND anon_id = ?'),
  page: db.prepare<[string, number, number], SessionRow>('SELECT * FROM sessions WHERE site_id = ? AND id > ? ORDER BY id LIMIT ?'),
}));

export function listVisitsOfVisitor(db: Db, siteId: string, anonId: string): SessionRow[] {
  return statements(db).ofVisitor.all(siteId, anonId);
}

/** Visits of a site with ids above `afterId`, in id order. */
export function listVisitsPage(db: Db, siteId: string, afterId: number, limit: number): SessionRow[] {
  return statements(db).page.all(siteId, afterId, limit);
}
