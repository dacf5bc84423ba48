// The imports table: one row per import job, its progress and its first errors; every statement is bounded to a site.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { ImportFormat } from '../import-formats.ts';

export type ImportStatus = 'queued' | 'running' | 'done' | 'failed';

export interface ImportRow {
  id: string;
  site_id: string;
  format: ImportFormat;
  status: ImportStatus;
  phase: 'validating' | 'storing' | null;
  rows_read: number;
  events_imported: number;
  duplicates: number;
  days_imported: number;
  bytes_total: number | null;
  bytes_read: number;
  /** JSON [{ line, message }]. */
  errors: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export type ImportProgress = Pick<ImportRow, 'id' | 'status' | 'phase' | 'rows_read' | 'events_imported' | 'duplicates' | 'days_imported' | 'bytes_read' | 'errors' | 'started_at' | 'finished_at'>;

const columns = 'id, site_id, format, status, phase, rows_read, events_imported, duplicates, days_imported, bytes_total, bytes_read, errors, created_at, started_at, finished_at';

const statements = preparedOnce((db) => ({
  insert: db.prepare<Pick<ImportRow, 'id' | 'site_id' | 'format' | 'bytes_total' | 'created_at'>>(
    `INSERT INTO imports (id, site_id, format, status, bytes_total, created_at) VALUES (:id, :site_id, :format, 'queued', :bytes_total, :created_at)`,
  ),
  progress: db.prepare<ImportProgress>(
    `UPDATE imports SET status = :status, phase = :phase, rows_read = :rows_read, events_imported = :events_imported, duplicates = :duplicates,
       days_imported = :days_imported, bytes_read = :bytes_read, errors = :errors, started_at = :started_at, finished_at = :finished_at
     WHERE id = :id`,
  ),
  find: db.prepare<[siteId: string, id: string], ImportRow>(`SELECT ${columns} FROM imports WHERE site_id = ? AND id = ?`),
  listOfSite: db.prepare<[siteId: string, limit: number], ImportRow>(`SELECT ${columns} FROM imports WHERE site_id = ? ORDER BY created_at DESC, id LIMIT ?`),
  delete: db.prepare<[siteId: string, id: string]>('DELETE FROM imports WHERE site_id = ? AND id = ?'),
}));

export function insertImport(db: Db, row: Pick<ImportRow, 'id' | 'site_id' | 'format' | 'bytes_total' | 'created_at'>): void {
  statements(db).insert.run(row);
}

export function updateImportProgress(db: Db, progress: ImportProgress): void {
  statements(db).progress.run(progress);
}

export function findImport(db: Db, siteId: string, id: string): ImportRow | undefined {
  return statements(db).find.get(siteId, id);
}

export function listImportsOfSite(db: Db, siteId: string, limit: number): ImportRow[] {
  return statements(db).listOfSite.all(siteId, limit);
}

export function deleteImportRow(db: Db, siteId: string, id: string): void {
  statements(db).delete.run(siteId, id);
}

const failing = preparedOnce((db) =>
  db.prepare<{ finished_at: string; errors: string }>(
    `UPDATE imports SET status = 'failed', phase = NULL, finished_at = :finished_at, errors = :errors WHERE status IN ('queued', 'running')`,
  ),
);

/**
 * At a server's start: imports left queued or running by a stopped process never finish (their job went with it).
 * What one stored stays, and goes with a DELETE of the import.
 */
export function failInterruptedImports(db: Db, finishedAt: string): number {
  return failing(db).run({ finished_at: finishedAt, errors: JSON.stringify([{ line: 0, message: 'interrupted: the process stopped before the import finished' }]) }).changes;
}

const failingOne = preparedOnce((db) =>
  db.prepare<{ id: string; finished_at: string; errors: string }>(
    `UPDATE imports SET status = 'failed', phase = NULL, finished_at = :finished_at, errors = :errors WHERE id = :id AND status IN ('queued', 'running')`,
  ),
);

/** An import whose job ended without finishing it (its thread died): failed with `message`, if it is not over already. */
export function failUnfinishedImport(db: Db, id: string, finishedAt: string, message: string): void {
  failingOne(db).run({ id, finished_at: finishedAt, errors: JSON.stringify([{ line: 0, message }]) });
}
