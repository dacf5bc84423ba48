// The annotations table: one site's dated notes, each statement naming its site.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface AnnotationRow {
  id: string;
  site_id: string;
  /** YYYY-MM-DD, a UTC day. */
  date: string;
  text: string;
  visibility: 'personal' | 'site';
  owner_id: string;
  created_at: string;
}

const columns = 'id, site_id, date, text, visibility, owner_id, created_at';

const statements = preparedOnce((db) => ({
  insert: db.prepare<AnnotationRow>(`INSERT INTO annotations (${columns}) VALUES (:id, :site_id, :date, :text, :visibility, :owner_id, :created_at)`),
  listVisible: db.prepare<{ site_id: string; owner_id: string | null; from: string; to: string }, AnnotationRow>(
    `SELECT ${columns} FROM annotations
     WHERE site_id = :site_id AND date BETWEEN :from AND :to AND (visibility = 'site' OR owner_id = :owner_id)
     ORDER BY date, created_at, rowid`,
  ),
  count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM annotations WHERE site_id = ?'),
  find: db.prepare<[string, string], AnnotationRow>(`SELECT ${columns} FROM annotations WHERE site_id = ? AND id = ?`),
  update: db.prepare<AnnotationRow>('UPDATE annotations SET date = :date, text = :text, visibility = :visibility WHERE site_id = :site_id AND id = :id'),
  remove: db.prepare<[string, string]>('DELETE FROM annotations WHERE site_id = ? AND id = ?'),
  removeOfSite: db.prepare<[string]>('DELETE FROM annotations WHERE site_id = ?'),
}));

export function insertAnnotation(db: Db, row: AnnotationRow): void {
  statements(db).insert.run(row);
}

/** The annotations of days from..to (inclusive) the owner sees (null: only the site's), by date. */
export function listVisibleAnnotations(db: Db, siteId: string, ownerId: string | null, from: string, to: string): AnnotationRow[] {
  return statements(db).listVisible.all({ site_id: siteId, owner_id: ownerId, from, to });
}

export function countAnnotations(db: Db, siteId: string): number {
  return statements(db).count.get(siteId)!.n;
}

export function findAnnotationRow(db: Db, siteId: string, id: string): AnnotationRow | undefined {
  return statements(db).find.get(siteId, id);
}

export function updateAnnotationRow(db: Db, row: AnnotationRow): void {
  statements(db).update.run(row);
}

export function deleteAnnotationRow(db: Db, siteId: string, id: string): void {
  statements(db).remove.run(siteId, id);
}

/** The site data remover (src/app.ts). */
export function deleteAnnotationsOfSite(db: Db, siteId: string): void {
  statements(db).removeOfSite.run(siteId);
}
