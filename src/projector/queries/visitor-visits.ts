// Visit rows of one visitor, for forgetting it (a GDPR deletion).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { VisitRow } from './visit-rows.ts';

const statements = preparedOnce((db) => ({
  ofVisitor: db.prepare<[string, string], VisitRow>('SELECT * FROM sessions WHERE site_id = ? AND anon_id = ?'),
  deleteOfVisitor: db.prepare<[string, string]>('DELETE FROM sessions WHERE site_id = ? AND anon_id = ?'),
}));

export function listVisitsOfVisitor(db: Db, siteId: string, anonId: string): VisitRow[] {
  return statements(db).ofVisitor.all(siteId, anonId);
}

export function deleteVisitsOfVisitor(db: Db, siteId: string, anonId: string): void {
  statements(db).deleteOfVisitor.run(siteId, anonId);
}
