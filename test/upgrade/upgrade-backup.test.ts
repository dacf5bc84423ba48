// Before a schema upgrade, both database files are copied to DATA_DIR/backups/ (0700; files 0600) and the log names
// them; a database already at the latest version, or a new one, is not copied; a backup that fails stops the
// upgrade with the database untouched.
import Database from 'better-sqlite3';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/db/open.ts';
import { latestSchemaVersion } from '../../src/db/schema.ts';
import { makeTempDir } from '../_setup.ts';
import { databaseAtVersion, previousSchemaVersion } from './_old-schema.ts';

let logged: string[];
beforeEach(() => {
  logged = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    logged.push(String(chunk));
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

const workspaceRow = { id: 'w1', slug: 'old', name: 'Old', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };

function oldDataDir(): string {
  const dataDir = makeTempDir();
  databaseAtVersion(dataDir, previousSchemaVersion, (db) => {
    db.prepare('INSERT INTO workspaces (id, slug, name, created_at, updated_at) VALUES (:id, :slug, :name, :created_at, :updated_at)').run(workspaceRow);
    db.prepare("INSERT INTO sites (id, workspace_id, name, created_at) VALUES ('legacy', 'w1', 'Legacy', '2026-01-01T00:00:00.000Z')").run();
  });
  return dataDir;
}

describe('the backup before a schema upgrade', () => {
  it('copies both files of the previous version, private, named in the log, before upgrading', () => {
    const dataDir = oldDataDir();
    const db = openDatabase(join(dataDir, 'sightline.db'));
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    // The upgraded database still holds what the previous version wrote.
    expect(db.prepare('SELECT id, slug, name, created_at, updated_at FROM workspaces').all()).toEqual([workspaceRow]);
    expect(db.prepare('SELECT id, workspace_id FROM sites').all()).toEqual([{ id: 'legacy', workspace_id: 'w1' }]);
    db.close();

    const backups = join(dataDir, 'backups');
    const files = readdirSync(backups).sort();
    expect(files).toHaveLength(2);
    const [main, events] = files as [string, string];
    expect(main).toMatch(new RegExp(`^sightline-schema-${previousSchemaVersion}-\\d{8}T\\d{6}Z\\.db$`));
    expect(events).toBe(main.replace(/\.db$/, '.events.db'));
    expect(statSync(backups).mode & 0o777).toBe(0o700);
    for (const file of files) expect(statSync(join(backups, file)).mode & 0o777, file).toBe(0o600);
    // The log line names both files, before the upgrade and once done.
    const log = logged.join('');
    expect(log).toContain(`Schema upgrade ${previousSchemaVersion} → ${latestSchemaVersion}: backing up`);
    expect(log).toContain(`backed up`);
    for (const file of files) expect(log).toContain(join(backups, file));

    // The copy is the database as it was: the previous version, its rows.
    const copy = new Database(join(backups, main), { readonly: true });
    expect(copy.pragma('user_version', { simple: true })).toBe(previousSchemaVersion);
    expect(copy.prepare('SELECT id, slug, name, created_at, updated_at FROM workspaces').all()).toEqual([workspaceRow]);
    copy.close();
    const eventsCopy = new Database(join(backups, events), { readonly: true });
    expect(eventsCopy.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'events'").get()).toEqual({ n: previousSchemaVersion >= 7 ? 1 : 0 });
    eventsCopy.close();
  });

  it('copies nothing for a new database or one already at the latest version', () => {
    const dataDir = makeTempDir();
    openDatabase(join(dataDir, 'sightline.db')).close();
    openDatabase(join(dataDir, 'sightline.db')).close();
    expect(readdirSync(dataDir)).not.toContain('backups');
    expect(logged.join('')).toBe('');
  });

  it('stops the upgrade, the database untouched, when the backup cannot be written', () => {
    const dataDir = oldDataDir();
    // A file where the backups directory should be: the copy cannot be made.
    writeFileSync(join(dataDir, 'backups'), '');
    expect(() => openDatabase(join(dataDir, 'sightline.db'))).toThrow(/schema upgrade .* stopped, the database is unchanged: the backup to .* failed/);
    const db = new Database(join(dataDir, 'sightline.db'), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(previousSchemaVersion);
    db.close();
  });
});
