// The staging log: one row per site and group commit, appended in the commit, moved into the staged tables and
// deleted by the writer when idle (src/reports/rollup/staging-log.ts).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface StagingLogRow {
  seq: number;
  site_id: string;
  body: string;
}

const statements = preparedOnce((db) => ({
  append: db.prepare<[string, string]>('INSERT INTO report_staging_log (site_id, body) VALUES (?, ?)'),
  first: db.prepare<[number], StagingLogRow>('SELECT seq, site_id, body FROM report_staging_log ORDER BY seq LIMIT ?'),
  ofSite: db.prepare<[string], string>('SELECT body FROM report_staging_log WHERE site_id = ? ORDER BY seq').pluck(),
  deleteThrough: db.prepare<[number]>('DELETE FROM report_staging_log WHERE seq <= ?'),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_staging_log WHERE site_id = ?'),
}));

export function appendStagingLog(db: Db, siteId: string, body: string): void {
  statements(db).append.run(siteId, body);
}

/** The oldest rows, in the order they were appended. */
export function listOldestStagingLog(db: Db, limit: number): StagingLogRow[] {
  return statements(db).first.all(limit);
}

/** One site's bodies, oldest first (a report reads them on top of the staged tables). */
export function listSiteStagingLog(db: Db, siteId: string): string[] {
  return statements(db).ofSite.all(siteId);
}

export function deleteStagingLogThrough(db: Db, seq: number): void {
  statements(db).deleteThrough.run(seq);
}

export function deleteStagingLogOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
