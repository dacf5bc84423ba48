// The staging log: one row per site and group commit, appended in the commit, moved into the staged tables and
// deleted by the writer when idle (src/reports/rollup/staging-log.ts). Removals, rare, have a column of their own.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface StagingLogRow {
  seq: number;
  site_id: string;
  /** JSON: the counter changes and the additions. */
  body: string;
  /** JSON: the removals, or null when there are none. */
  removals: string | null;
}

const statements = preparedOnce((db) => ({
  append: db.prepare<[string, string, string | null]>('INSERT INTO report_staging_log (site_id, body, removals) VALUES (?, ?, ?)'),
  first: db.prepare<[number], StagingLogRow>('SELECT seq, site_id, body, removals FROM report_staging_log ORDER BY seq LIMIT ?'),
  ofSite: db.prepare<[string], StagingLogRow>('SELECT seq, site_id, body, removals FROM report_staging_log WHERE site_id = ? ORDER BY seq'),
  removalsAfter: db
    .prepare<[string, number], string>(
      'SELECT removals FROM report_staging_log WHERE site_id = ? AND seq > ? AND removals IS NOT NULL ORDER BY seq',
    )
    .pluck(),
  deleteThrough: db.prepare<[number]>('DELETE FROM report_staging_log WHERE seq <= ?'),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_staging_log WHERE site_id = ?'),
}));

export function appendStagingLog(db: Db, siteId: string, body: string, removals: string | null): void {
  statements(db).append.run(siteId, body, removals);
}

/** The oldest rows, in the order they were appended. */
export function listOldestStagingLog(db: Db, limit: number): StagingLogRow[] {
  return statements(db).first.all(limit);
}

/** One site's rows, oldest first (a report reads them on top of the staged tables). */
export function listSiteStagingLog(db: Db, siteId: string): StagingLogRow[] {
  return statements(db).ofSite.all(siteId);
}

/** The removals (JSON) of one site's rows appended after `seq`. */
export function listStagingRemovalsAfter(db: Db, siteId: string, seq: number): string[] {
  return statements(db).removalsAfter.all(siteId, seq);
}

export function deleteStagingLogThrough(db: Db, seq: number): void {
  statements(db).deleteThrough.run(seq);
}

export function deleteStagingLogOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
