// Opens the one database file with the pragmas every Sightline connection needs, and applies the schema.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { applySchema } from './schema.ts';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** Read-only handles skip schema application (they may run while another process migrates). */
  readonly?: boolean;
  /** Native binding for better-sqlite3 (the single executable loads it from an embedded asset). */
  nativeBinding?: string;
  synchronous?: 'NORMAL' | 'FULL';
}

/**
 * Opens `path` in WAL mode with foreign keys on and a busy timeout, then applies schema.sql.
 * @example const db = openDatabase('./data/sightline.db');
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Db {
  if (!options.readonly) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, {
    readonly: options.readonly ?? false,
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
  });
  // Another process (the CLI, a second server) may hold the write lock for a moment: wait, don't fail.
  db.pragma('busy_timeout = 5000');
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    // WAL + NORMAL: a committed transaction is in the WAL before the 202 goes out, so an acknowledged event
    // survives a crash of the process (kill -9); only a power failure can lose the last commits before the next
    // checkpoint's fsync. SQLITE_SYNCHRONOUS=full makes every commit wait for the disk (one fsync per group commit).
    db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  }
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  if (!options.readonly) applySchema(db);
  return db;
}
