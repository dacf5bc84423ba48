// Dimension values ↔ small integer ids, per site and dimension (ids are dense from 0, in order of first sight).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  find: db.prepare<[string, number, string], number>('SELECT value_id FROM report_values WHERE site_id = ? AND dim = ? AND value = ?').pluck(),
  insert: db
    .prepare<{ site_id: string; dim: number; value: string }, number>(
      `INSERT INTO report_values (site_id, dim, value, value_id)
       VALUES (:site_id, :dim, :value,
         (SELECT coalesce(max(value_id), -1) + 1 FROM report_values WHERE site_id = :site_id AND dim = :dim))
       RETURNING value_id`,
    )
    .pluck(),
  all: db.prepare<[string, number], { value_id: number; value: string }>('SELECT value_id, value FROM report_values WHERE site_id = ? AND dim = ?'),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_values WHERE site_id = ?'),
}));

export function findValueId(db: Db, siteId: string, dim: number, value: string): number | undefined {
  return statements(db).find.get(siteId, dim, value) as number | undefined;
}

export function findOrInsertValueId(db: Db, siteId: string, dim: number, value: string): number {
  return findValueId(db, siteId, dim, value) ?? statements(db).insert.get({ site_id: siteId, dim, value })!;
}

/** Every value of a dimension of a site, id → text. */
export function listValues(db: Db, siteId: string, dim: number): Map<number, string> {
  return new Map(statements(db).all.all(siteId, dim).map((row) => [row.value_id, row.value]));
}

export function deleteValuesOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
