// Inserts and deletes site rows.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { SiteRow } from './find-site.ts';

const statements = preparedOnce((db) => ({
  insert: db.prepare<SiteRow>(
    'INSERT INTO sites (id, workspace_id, name, created_at, cookieless, retention_days) VALUES (:id, :workspace_id, :name, :created_at, :cookieless, :retention_days)',
  ),
  update: db.prepare<{ id: string; name: string; cookieless: 0 | 1; retention_days: number | null }>(
    'UPDATE sites SET name = :name, cookieless = :cookieless, retention_days = :retention_days WHERE id = :id',
  ),
  withRetention: db.prepare<[], SiteRow>('SELECT id, workspace_id, name, created_at, cookieless, retention_days FROM sites WHERE retention_days IS NOT NULL ORDER BY id'),
  delete: db.prepare<[string]>('DELETE FROM sites WHERE id = ?'),
}));

export function insertSite(db: Db, row: SiteRow): void {
  statements(db).insert.run(row);
}

export function deleteSiteRow(db: Db, siteId: string): void {
  statements(db).delete.run(siteId);
}

export function updateSiteRow(db: Db, row: Pick<SiteRow, 'id' | 'name' | 'cookieless' | 'retention_days'>): void {
  statements(db).update.run({ id: row.id, name: row.name, cookieless: row.cookieless, retention_days: row.retention_days });
}

/** The sites with a retention period (the purge's work list). */
export function listSitesWithRetention(db: Db): SiteRow[] {
  return statements(db).withRetention.all();
}
