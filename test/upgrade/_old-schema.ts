// A data directory as an older release left it: schema.sql's sections up to `version` (parseSchemaSections, never a
// hard-coded number: later sections land from other branches), applied as that release applied them.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { eventLogPath } from '../../src/db/open.ts';
import { registerRawFunctions } from '../../src/db/raw-codec.ts';
import { schemaSections, stepsOf } from '../../src/db/schema.ts';

/** The schema version before the newest: what the previous release's databases hold. */
export const previousSchemaVersion = schemaSections.length - 1;

/**
 * Creates DATA_DIR/sightline.db (and events.db) at `version`, runs `fill` on it (sightline.db with the event log
 * attached as `eventlog`), and closes it.
 * @example databaseAtVersion(dataDir, previousSchemaVersion, (db) => db.prepare('INSERT INTO workspaces …').run())
 */
export function databaseAtVersion(dataDir: string, version: number, fill: (db: Database.Database) => void = () => {}): string {
  const path = join(dataDir, 'sightline.db');
  const db = new Database(path);
  // Sections from version 30 on pack events.raw through it, as every server connection does (src/db/open.ts).
  registerRawFunctions(db);
  try {
    db.pragma('journal_mode = WAL');
    db.prepare('ATTACH DATABASE ? AS eventlog').run(eventLogPath(path));
    db.pragma('eventlog.journal_mode = WAL');
    for (const section of schemaSections.filter((section) => section.version <= version)) {
      for (const step of stepsOf(section.sql)) db.exec(step);
      db.pragma(`user_version = ${section.version}`);
    }
    fill(db);
  } finally {
    db.close();
  }
  return path;
}
