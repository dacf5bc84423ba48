// Before a schema upgrade touches a database, both of its files are copied to DATA_DIR/backups/ (0700, files 0600):
// an upgrade that goes wrong, or a release rolled back, restores from there (docs/deploy.md, "Upgrades"). No copy,
// no upgrade: a failed backup (a full disk) stops the upgrade with the database untouched.
// The driver's connection type, not open.ts's Db: open.ts applies the schema, which calls this module (no circle).
import type Database from 'better-sqlite3';
import { existsSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createPrivateDirectory, createPrivateFile } from './file-modes.ts';

/** What a backup wrote: sightline.db's copy and the event log's beside it. */
export interface BackupFiles {
  to: string;
  eventsTo: string;
}

/** Where the event log's copy goes: backup.db → backup.events.db (any other name gets .events.db appended). */
export function eventLogBackupPath(file: string): string {
  return file.endsWith('.db') ? `${file.slice(0, -3)}.events.db` : `${file}.events.db`;
}

/** DATA_DIR/backups/sightline-schema-<version>-<UTC time>.db, never an existing name. */
function backupPath(databasePath: string, fromVersion: number, now: Date): string {
  const directory = join(dirname(databasePath), 'backups');
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  for (let attempt = 0; ; attempt++) {
    const path = join(directory, `sightline-schema-${fromVersion}-${stamp}${attempt ? `-${attempt}` : ''}.db`);
    if (!existsSync(path) && !existsSync(eventLogBackupPath(path))) return path;
  }
}

/**
 * Copies sightline.db and the attached event log (`eventlog`) with VACUUM INTO: a consistent snapshot of each, safe
 * while another process writes, synchronous (it runs inside openDatabase). The copies are created empty with mode
 * 0600 first, as SQLite would give them the process's umask. Prints the files on stderr (stdout may be --json).
 * @example backupBeforeUpgrade(db, 9, 10, new Date()) // { to: 'data/backups/sightline-schema-9-20261124T080000Z.db', eventsTo: '….events.db' }
 */
export function backupBeforeUpgrade(db: Database.Database, fromVersion: number, toVersion: number, now: Date): BackupFiles {
  const to = backupPath(db.name, fromVersion, now);
  const eventsTo = eventLogBackupPath(to);
  process.stderr.write(`Schema upgrade ${fromVersion} → ${toVersion}: backing up ${db.name} to ${to} and its event log to ${eventsTo} first\n`);
  try {
    createPrivateDirectory(dirname(to));
    for (const path of [to, eventsTo]) createPrivateFile(path);
    db.prepare('VACUUM main INTO ?').run(to);
    if (isAttached(db, 'eventlog')) db.prepare('VACUUM eventlog INTO ?').run(eventsTo);
  } catch (error) {
    for (const path of [to, eventsTo]) removeIfPossible(path);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`schema upgrade ${fromVersion} → ${toVersion} stopped, the database is unchanged: the backup to ${to} failed (${reason})`);
  }
  const mebibytes = ((statSync(to).size + statSync(eventsTo).size) / 2 ** 20).toFixed(1);
  process.stderr.write(`Schema upgrade ${fromVersion} → ${toVersion}: backed up (${mebibytes} MiB) to ${to} and ${eventsTo}\n`);
  return { to, eventsTo };
}

function removeIfPossible(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Nothing was written there (e.g. the backups directory is not a directory).
  }
}

function isAttached(db: Database.Database, schema: string): boolean {
  return (db.pragma('database_list') as { name: string }[]).some((entry) => entry.name === schema);
}
