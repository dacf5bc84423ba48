// Inserts and deletes site rows.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { SiteRow } from './find-site.ts';

const statements = preparedOnce((db) => ({
  insert: db.prepare<SiteRow>(
    'INSERT INTO sites (id, workspace_id, name, created_at, cookieless) VALUES (:id, :workspace_id, :name, :created_at, :cookieless)',
  ),
  delete: db.prepare<[string]>('DELETE FROM sites WHERE id = ?'),
}));

export function insertSite(db: Db, row: SiteRow): void {
  statements(db).insert.run(row);
}

export function deleteSiteRow(db: Db, siteId: string): void {
  statements(db).delete.run(siteId);
}
