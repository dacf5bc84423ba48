// Visit rows of one visitor, for forgetting it (a GDPR deletion).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { SessionRow } from './visit-rows.ts';

const statements = preparedOnce((db) => ({
  ofVisitor: db.prepare<[string, string], SessionRow>('SELECT * FROM sessions WHERE site_id = ? AND anon_id = ?'),
  deleteOfVisitor: db.prepare<[string, string]>('DELETE FROM sessions WHERE site_id = ? AND anon_id = ?'),
}));

export function listVisitsOfVisitor(db: Db, siteId: string, anonId: string): SessionRow[] {
  return statements(db).ofVisitor.all(siteId, anonId);
}

export function deleteVisitsOfVisitor(db: Db, siteId: string, anonId: string): void {
  statements(db).deleteOfVisitor.run(siteId, anonId);
}
