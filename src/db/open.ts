// Opens Sightline's two database files with the pragmas every connection needs: sightline.db (administration and
// everything the projector derives) with the event log, events.db, attached as `eventlog`. The ingest writer opens
// the event log alone (openEventLog), so its commits never take a lock on sightline.db.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { embeddedSqliteAddon } from '../binary/embedded.ts';
import { createPrivateDirectory, createPrivateFile } from './file-modes.ts';
import { registerRawFunctions } from './raw-codec.ts';
import { applySchema } from './schema.ts';

export type Db = Database.Database;

/** The schema name of the attached event log (schema.sql names it in version 7). */
export const eventLogSchema = 'eventlog';

export type Synchronous = 'NORMAL' | 'FULL';

export interface OpenDatabaseOptions {
  /** Read-only handles skip schema application (they may run while another process migrates). */
  readonly?: boolean;
  /** Native binding for better-sqlite3 (the single executable loads it from an embedded asset). */
  nativeBinding?: string;
  synchronous?: Synchronous;
  /** Page cache of sightline.db, MiB (default 16): report reads and the projector's visits and visitor sets use it. */
  cacheMiB?: number;
  /**
   * Page cache of the attached event log, MiB (default: cacheMiB). Its reads are mostly of the newest pages (the
   * projector, dedup, the stream), which the WAL and the OS keep hot, so a small cache costs little and saves RSS.
   */
  logCacheMiB?: number;
}

/** events.db beside sightline.db (an in-memory database gets an in-memory log). */
export function eventLogPath(databasePath: string): string {
  return databasePath === ':memory:' || databasePath === '' ? ':memory:' : join(dirname(databasePath), 'events.db');
}

/** The size a WAL file is cut back to when it starts over (64 MiB). */
export const walSizeLimitBytes = 64 * 2 ** 20;

function configure(db: Db, schema: string, options: OpenDatabaseOptions, cacheMiB = options.cacheMiB ?? 16): void {
  if (!options.readonly) {
    db.pragma(`${schema}.journal_mode = WAL`);
    // WAL + NORMAL: a committed transaction is in the WAL before the 202 goes out, so an acknowledged event
    // survives a crash of the process (kill -9); FULL also makes it survive a power failure (an fsync per commit).
    db.pragma(`${schema}.synchronous = ${options.synchronous ?? 'NORMAL'}`);
    // When a WAL starts over, its file is cut back to this size: a burst's WAL does not keep its disk space.
    db.pragma(`${schema}.journal_size_limit = ${walSizeLimitBytes}`);
  }
  db.pragma(`${schema}.cache_size = ${-1024 * cacheMiB}`);
}

/** A writable file database is created private (0600 in a 0700 directory) before SQLite opens it. */
function createIfMissing(path: string, options: OpenDatabaseOptions): void {
  if (options.readonly || path === ':memory:' || path === '') return;
  createPrivateDirectory(dirname(path));
  createPrivateFile(path);
}

/**
 * better-sqlite3's options for its addon: the one named, else the single executable's embedded one, else its own.
 * @example new Database(':memory:', sqliteBinding())
 */
export function sqliteBinding(nativeBinding?: string): { nativeBinding?: string } {
  // better-sqlite3 also takes the loaded addon object; its type declarations list only a path.
  const binding = nativeBinding ?? (embeddedSqliteAddon() as string | undefined);
  return binding ? { nativeBinding: binding } : {};
}

/** The SQLite library's version, e.g. '3.51.1' (what --version prints). */
export function sqliteLibraryVersion(): string {
  const db = new Database(':memory:', sqliteBinding());
  try {
    return db.prepare('SELECT sqlite_version() AS version').pluck().get() as string;
  } finally {
    db.close();
  }
}

function connect(path: string, options: OpenDatabaseOptions): Db {
  createIfMissing(path, options);
  const db = new Database(path, { readonly: options.readonly ?? false, ...sqliteBinding(options.nativeBinding) });
  // Another connection (the projector, the CLI, a second server) may hold a write lock for a moment: wait, don't fail.
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('temp_store = MEMORY');
  // events.raw is stored compressed and read through this function (src/db/raw-codec.ts).
  registerRawFunctions(db);
  return db;
}

/**
 * Opens `path` (sightline.db) in WAL mode with the event log attached, then applies schema.sql.
 * @example const db = openDatabase('./data/sightline.db');
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Db {
  const db = connect(path, options);
  const logPath = eventLogPath(path);
  // A read-only handle of a database from before the split has no event log yet: its events are still in main.
  if (!options.readonly || logPath === ':memory:' || existsSync(logPath)) {
    createIfMissing(logPath, options);
    db.prepare(`ATTACH DATABASE ? AS ${eventLogSchema}`).run(logPath);
    configure(db, eventLogSchema, options, options.logCacheMiB ?? options.cacheMiB);
  }
  configure(db, 'main', options);
  if (!options.readonly) applySchema(db);
  return db;
}

/**
 * The event log alone, for the ingest writer: its transactions lock events.db only. Open it after openDatabase has
 * applied the schema.
 * @example const log = openEventLog('./data/sightline.db', { cacheMiB: 8 });
 */
export function openEventLog(databasePath: string, options: OpenDatabaseOptions = {}): Db {
  const db = connect(eventLogPath(databasePath), options);
  configure(db, 'main', options);
  return db;
}

/**
 * sightline.db alone, read-only, without the event log: the writer's reads of the dedup index (event_keys) while its
 * own connection holds the event log's write lock. Undefined for an in-memory database (the writer then dedups
 * against its in-memory tail alone, which is never pruned).
 */
export function openMainReadOnly(databasePath: string, options: OpenDatabaseOptions = {}): Db | undefined {
  if (databasePath === ':memory:' || databasePath === '') return undefined;
  const db = connect(databasePath, { ...options, readonly: true });
  configure(db, 'main', { ...options, readonly: true });
  return db;
}
