// Applies schema.sql section by section; each "-- @version N" section runs once, in its own transaction.
import type Database from 'better-sqlite3';
import schemaText from '../../schema.sql';
import { backupBeforeUpgrade } from './upgrade-backup.ts';

export interface SchemaSection {
  version: number;
  sql: string;
}

/** Splits schema.sql at its "-- @version N" markers. */
export function parseSchemaSections(text: string): SchemaSection[] {
  const sections: SchemaSection[] = [];
  const marker = /^-- @version (\d+)\b.*$/gm;
  const matches = [...text.matchAll(marker)];
  matches.forEach((match, index) => {
    const start = (match.index ?? 0) + match[0].length;
    const end = matches[index + 1]?.index ?? text.length;
    sections.push({ version: Number(match[1]), sql: text.slice(start, end) });
  });
  sections.forEach((section, index) => {
    if (section.version !== index + 1) throw new Error(`schema.sql: section ${index + 1} is marked @version ${section.version}`);
  });
  return sections;
}

export const schemaSections = parseSchemaSections(schemaText);
export const latestSchemaVersion = schemaSections.length;

/**
 * Brings the database up to the latest version; a database from a newer release is refused. A file database that
 * holds an older version is backed up first (DATA_DIR/backups/, src/db/upgrade-backup.ts); a new one has nothing to
 * lose.
 */
export function applySchema(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > latestSchemaVersion) {
    throw new Error(`database schema version ${current} is newer than this release (${latestSchemaVersion})`);
  }
  if (current > 0 && current < latestSchemaVersion && !db.memory) backupBeforeUpgrade(db, current, latestSchemaVersion, new Date());
  for (const section of schemaSections) {
    if (section.version <= current) continue;
    const steps = stepsOf(section.sql);
    steps.forEach((step, index) => {
      db.transaction(() => {
        // Re-check under the write lock: a second process may have migrated meanwhile.
        const now = db.pragma('user_version', { simple: true }) as number;
        if (now >= section.version) return;
        db.exec(step);
        if (index === steps.length - 1) db.pragma(`user_version = ${section.version}`);
      }).immediate();
    });
  }
}

/**
 * A section's steps, split at "-- @commit" lines: each commits on its own, the version is recorded with the last.
 * A transaction over both files (sightline.db and the attached event log) is atomic per file only in WAL mode, so a
 * step writes one file; a crash between steps re-runs the section, so every step but the last must be idempotent.
 */
export function stepsOf(sql: string): string[] {
  return sql.split(/^-- @commit\b.*$/m).filter((step) => step.trim() !== '');
}
