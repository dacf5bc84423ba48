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
  after: db
    .prepare<[string, number, number], [number, string]>('SELECT value_id, value FROM report_values WHERE site_id = ? AND dim = ? AND value_id > ?')
    .raw(),
  newestId: db.prepare<[string, number], number | null>('SELECT max(value_id) FROM report_values WHERE site_id = ? AND dim = ?').pluck(),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_values WHERE site_id = ?'),
}));

export function findValueId(db: Db, siteId: string, dim: number, value: string): number | undefined {
  return statements(db).find.get(siteId, dim, value) as number | undefined;
}

export function findOrInsertValueId(db: Db, siteId: string, dim: number, value: string): number {
  const found = findValueId(db, siteId, dim, value);
  if (found !== undefined) return found;
  return statements(db).insert.get({ site_id: siteId, dim, value })!;
}

interface KnownValues {
  siteCreatedAt: string;
  newestId: number;
  values: Map<number, string>;
}

/** Values already read, per handle: ids are only appended while a site exists, so a read fetches just the new ones. */
const knownValues = new WeakMap<Db, Map<string, KnownValues>>();
const maxKnownValues = 200_000;

/**
 * Every value of a dimension of a site, id → text (do not modify the map). `siteCreatedAt` tells a re-created
 * site from the deleted one.
 */
export function listValues(db: Db, siteId: string, siteCreatedAt: string, dim: number): ReadonlyMap<number, string> {
  let bySite = knownValues.get(db);
  if (!bySite) knownValues.set(db, (bySite = new Map()));
  const key = `${siteId}\u0000${dim}`;
  const newestId = statements(db).newestId.get(siteId, dim) ?? -1;
  let known = bySite.get(key);
  if (!known || known.siteCreatedAt !== siteCreatedAt || newestId < known.newestId) {
    known = { siteCreatedAt, newestId: -1, values: new Map() };
    bySite.set(key, known);
  }
  if (newestId > known.newestId) {
    for (const [id, value] of statements(db).after.iterate(siteId, dim, known.newestId)) known.values.set(id, value);
    known.newestId = newestId;
  }
  if (known.values.size > maxKnownValues) bySite.delete(key);
  return known.values;
}

export function deleteValuesOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
