// The seq ranges of the events each import stored (one per stored batch): how deleting an import finds its events.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface ImportEventRangeRow {
  import_id: string;
  first_seq: number;
  last_seq: number;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<ImportEventRangeRow>('INSERT INTO import_event_ranges (import_id, first_seq, last_seq) VALUES (:import_id, :first_seq, :last_seq)'),
  list: db.prepare<[importId: string], ImportEventRangeRow>('SELECT import_id, first_seq, last_seq FROM import_event_ranges WHERE import_id = ? ORDER BY first_seq'),
  delete: db.prepare<[importId: string]>('DELETE FROM import_event_ranges WHERE import_id = ?'),
  deleteOfSite: db.prepare<[siteId: string]>('DELETE FROM import_event_ranges WHERE import_id IN (SELECT id FROM imports WHERE site_id = ?)'),
  deleteImportsOfSite: db.prepare<[siteId: string]>('DELETE FROM imports WHERE site_id = ?'),
}));

export function insertImportEventRange(db: Db, range: ImportEventRangeRow): void {
  statements(db).insert.run(range);
}

export function listImportEventRanges(db: Db, importId: string): ImportEventRangeRow[] {
  return statements(db).list.all(importId);
}

export function deleteImportEventRanges(db: Db, importId: string): void {
  statements(db).delete.run(importId);
}

/** A site's imports and their ranges (a site data remover: its events go with the site's). */
export function deleteImportsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
  statements(db).deleteImportsOfSite.run(siteId);
}
