// Writes of imported_daily (Plausible's daily aggregates, schema version 22): one row per site, dimension, value and
// day. Reads are the read model's (src/read-model/sqlite/queries/imported-daily.ts).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface ImportedDailyRow {
  site_id: string;
  dimension: string;
  value: string;
  day: number;
  import_id: string;
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  duration_s: number;
  events: number;
}

const statements = preparedOnce((db) => ({
  // Rows of one import with the same key add up (Plausible's browsers and OSes have a row per version); a key another
  // import already holds is left as it is (a re-import adds nothing).
  upsert: db.prepare<ImportedDailyRow>(
    `INSERT INTO imported_daily (site_id, dimension, value, day, import_id, visitors, visits, pageviews, bounces, duration_s, events)
     VALUES (:site_id, :dimension, :value, :day, :import_id, :visitors, :visits, :pageviews, :bounces, :duration_s, :events)
     ON CONFLICT (site_id, dimension, value, day) DO UPDATE SET visitors = visitors + excluded.visitors, visits = visits + excluded.visits,
       pageviews = pageviews + excluded.pageviews, bounces = bounces + excluded.bounces, duration_s = duration_s + excluded.duration_s,
       events = events + excluded.events
     WHERE import_id = excluded.import_id`,
  ),
  daysOfImport: db.prepare<[importId: string], number>("SELECT count(DISTINCT day) FROM imported_daily WHERE import_id = ? AND dimension = 'total'").pluck(),
  rowsOfImport: db.prepare<[importId: string], number>('SELECT count(*) FROM imported_daily WHERE import_id = ?').pluck(),
  deleteOfImport: db.prepare<[importId: string]>('DELETE FROM imported_daily WHERE import_id = ?'),
  deleteOfSite: db.prepare<[siteId: string]>('DELETE FROM imported_daily WHERE site_id = ?'),
}));

/** Returns whether the row was stored (false: another import holds that figure). */
export function upsertImportedDaily(db: Db, row: ImportedDailyRow): boolean {
  return statements(db).upsert.run(row).changes > 0;
}

export function importedDaysOfImport(db: Db, importId: string): number {
  return statements(db).daysOfImport.get(importId) ?? 0;
}

/** Returns how many rows it deleted. */
export function deleteImportedDailyOfImport(db: Db, importId: string): number {
  return statements(db).deleteOfImport.run(importId).changes;
}

export function deleteImportedDailyOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
