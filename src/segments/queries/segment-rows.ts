// The segments table: one site's saved filters, each statement naming its site.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface SegmentRow {
  id: string;
  site_id: string;
  name: string;
  /** JSON object: the common filter parameters as sent (name → text). */
  filters: string;
  visibility: 'personal' | 'site';
  owner_id: string;
  created_at: string;
}

const columns = 'id, site_id, name, filters, visibility, owner_id, created_at';

const statements = preparedOnce((db) => ({
  insert: db.prepare<SegmentRow>(`INSERT INTO segments (${columns}) VALUES (:id, :site_id, :name, :filters, :visibility, :owner_id, :created_at)`),
  listVisible: db.prepare<{ site_id: string; owner_id: string }, SegmentRow>(
    `SELECT ${columns} FROM segments WHERE site_id = :site_id AND (visibility = 'site' OR owner_id = :owner_id) ORDER BY created_at, rowid`,
  ),
  count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM segments WHERE site_id = ?'),
  find: db.prepare<[string, string], SegmentRow>(`SELECT ${columns} FROM segments WHERE site_id = ? AND id = ?`),
  update: db.prepare<SegmentRow>('UPDATE segments SET name = :name, filters = :filters, visibility = :visibility WHERE site_id = :site_id AND id = :id'),
  remove: db.prepare<[string, string]>('DELETE FROM segments WHERE site_id = ? AND id = ?'),
  removeOfSite: db.prepare<[string]>('DELETE FROM segments WHERE site_id = ?'),
}));

export function insertSegment(db: Db, row: SegmentRow): void {
  statements(db).insert.run(row);
}

/** The site's segments and the owner's personal ones, oldest first. */
export function listVisibleSegments(db: Db, siteId: string, ownerId: string): SegmentRow[] {
  return statements(db).listVisible.all({ site_id: siteId, owner_id: ownerId });
}

export function countSegments(db: Db, siteId: string): number {
  return statements(db).count.get(siteId)!.n;
}

export function findSegmentRow(db: Db, siteId: string, id: string): SegmentRow | undefined {
  return statements(db).find.get(siteId, id);
}

export function updateSegmentRow(db: Db, row: SegmentRow): void {
  statements(db).update.run(row);
}

export function deleteSegmentRow(db: Db, siteId: string, id: string): void {
  statements(db).remove.run(siteId, id);
}

/** The site data remover (src/app.ts). */
export function deleteSegmentsOfSite(db: Db, siteId: string): void {
  statements(db).removeOfSite.run(siteId);
}
