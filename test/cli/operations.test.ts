// The operator commands of the real CLI: version, admin-token, doctor and backup.
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { latestSchemaVersion } from '../../src/db/schema.ts';
import { ensureBuilt, parseJsonOutput, readDatabase, runCli } from './cli-helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-ops-'));
let dataDir: string;
let counter = 0;

const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });

// Each test runs several node processes; on a busy machine that can be slow. Nothing here asserts a duration.
vi.setConfig({ testTimeout: 120_000 });
beforeAll(ensureBuilt, 120_000);
beforeEach(() => {
  counter += 1;
  dataDir = join(scratch, `data-${counter}`);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
}

const checkNamed = (checks: DoctorCheck[], name: string) => {
  const check = checks.find((item) => item.name === name);
  if (!check) throw new Error(`doctor printed no ${name} check: ${JSON.stringify(checks)}`);
  return check;
};

describe('version', () => {
  it('--version prints Sightline\'s semver, the running Node\'s and SQLite\'s; version --json the same three', async () => {
    const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    const text = await cli('--version');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^sightline ${packageVersion.replaceAll('.', '\\.')} \\(Node\\.js ${process.versions.node.replaceAll('.', '\\.')}, SQLite 3\\.\\d+\\.\\d+\\)\n$`));
    const json = parseJsonOutput(await cli('version', '--json'));
    expect(json).toEqual({ sightline: packageVersion, node: process.versions.node, sqlite: text.stdout.match(/SQLite (\S+)\)/)![1] });
    // Nothing is opened or created: the versions need no data directory.
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('admin-token', () => {
  it('with no token yet exits 1 and says how to get one', async () => {
    expect((await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme')).code).toBe(0);
    const result = await cli('admin-token');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`Error: No admin token yet: start the server once on ${dataDir} (not_found)\n`);
  });

  it('on a directory without Sightline data exits 1 with the hint to name the data directory', async () => {
    const result = await cli('admin-token');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`No Sightline data in ${dataDir} (from DATA_DIR). Pass --data-dir DIR or set DATA_DIR`);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('prints the token of DATA_DIR/admin-token (and as JSON)', async () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'admin-token'), 'sla_file-token-0123456789abcdef\n', { mode: 0o600 });
    const result = await cli('admin-token');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('sla_file-token-0123456789abcdef\n');
    expect(parseJsonOutput(await cli('admin-token', '--json'))).toEqual({ admin_token: 'sla_file-token-0123456789abcdef' });
  });

  it('prints ADMIN_TOKEN when it is set, even over the file', async () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'admin-token'), 'sla_file-token-0123456789abcdef\n', { mode: 0o600 });
    const result = await runCli(['admin-token'], { DATA_DIR: dataDir, ADMIN_TOKEN: 'env-token-0123456789abcdef' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('env-token-0123456789abcdef\n');
  });
});

describe('doctor', () => {
  it('on a healthy data dir exits 0 and reports pragmas, schema version and versions', async () => {
    expect((await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme')).code).toBe(0);

    const human = await cli('doctor');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^CHECK\s+STATUS\s+DETAIL$/m);
    expect(human.stdout).toMatch(/^journal_mode\s+ok\s+wal$/m);
    expect(human.stdout).toMatch(/^event log journal_mode\s+ok\s+wal$/m);
    expect(human.stdout).toMatch(/^foreign_keys\s+ok\s+1$/m);
    expect(human.stdout).toMatch(/^busy_timeout\s+ok\s+\d+ ms$/m);
    expect(human.stdout).toMatch(new RegExp(`^schema version\\s+ok\\s+${latestSchemaVersion} `, 'm'));
    expect(human.stdout).toContain(process.versions.node);
    expect(human.stdout).toMatch(/^sqlite\s+ok\s+\d+\.\d+\.\d+$/m);
    expect(human.stdout).not.toContain('FAIL');

    const json = await cli('doctor', '--json');
    expect(json.code).toBe(0);
    const report = parseJsonOutput<{ ok: boolean; checks: DoctorCheck[] }>(json);
    expect(report.ok).toBe(true);
    expect(report.checks.every((check) => check.ok)).toBe(true);
    expect(checkNamed(report.checks, 'journal_mode').detail).toBe('wal');
    expect(checkNamed(report.checks, 'foreign_keys').detail).toBe('1');
    expect(Number.parseInt(checkNamed(report.checks, 'busy_timeout').detail, 10)).toBeGreaterThan(0);
    expect(checkNamed(report.checks, 'schema version').detail).toMatch(new RegExp(`^${latestSchemaVersion} `));
    expect(checkNamed(report.checks, 'node').detail).toContain(process.versions.node);
    expect(checkNamed(report.checks, 'sqlite').detail).toMatch(/^\d+\.\d+\.\d+$/);
    expect(checkNamed(report.checks, 'data directory').detail).toContain(dataDir);
  });

  it('on a missing data dir exits 1, says it is missing, and does not create it', async () => {
    const human = await cli('doctor');
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^data directory\s+FAIL\s+.*\(missing\)$/m);

    const json = await cli('doctor', '--json');
    expect(json.code).toBe(1);
    const report = parseJsonOutput<{ ok: boolean; checks: DoctorCheck[] }>(json);
    expect(report.ok).toBe(false);
    expect(checkNamed(report.checks, 'data directory')).toMatchObject({ ok: false, detail: expect.stringContaining('missing') });
    expect(existsSync(dataDir)).toBe(false);
  });

  it('on a directory without Sightline data exits 1 with the hint, and creates no database there', async () => {
    mkdirSync(dataDir, { mode: 0o700 });
    const json = await cli('doctor', '--json');
    expect(json.code).toBe(1);
    const report = parseJsonOutput<{ ok: boolean; checks: DoctorCheck[] }>(json);
    expect(checkNamed(report.checks, 'data directory')).toMatchObject({ ok: true });
    expect(checkNamed(report.checks, 'database')).toMatchObject({ ok: false, detail: expect.stringContaining(`No Sightline data in ${dataDir} (from DATA_DIR). Pass --data-dir DIR or set DATA_DIR`) });
    expect(report.checks.map((check) => check.name)).not.toContain('journal_mode');
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('fails when the admin-token file is readable by others', async () => {
    expect((await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme')).code).toBe(0);
    writeFileSync(join(dataDir, 'admin-token'), 'sla_file-token-0123456789abcdef\n');
    chmodSync(join(dataDir, 'admin-token'), 0o644);
    const json = await cli('doctor', '--json');
    expect(json.code).toBe(1);
    expect(checkNamed(parseJsonOutput(json).checks, 'admin-token file')).toMatchObject({ ok: false, detail: expect.stringContaining('0644') });
  });
});

describe('backup', () => {
  it('writes both files, which open and hold the workspaces and the events; an existing destination is refused', async () => {
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    await cli('workspace', 'create', '--name', 'Beta', '--slug', 'beta');
    await cli('site', 'create', '--workspace', 'acme', '--id', 'blog', '--name', 'Blog');
    const destination = join(scratch, `backup-${counter}.db`);

    // An event in the log (written as the ingest writer would) must be in the event log's copy.
    const { openDatabase } = await import('../../src/db/open.ts');
    const live = openDatabase(join(dataDir, 'sightline.db'));
    live.prepare("INSERT INTO events (site_id, dedup_key, type_stored, ts, received_after_ts, source_stored, raw_packed) VALUES ('blog', 1, 'click', 1, 0, 'direct', sightline_pack_raw('blog', 1, '{\"id\":\"x\",\"anon_id\":\"a\"}'))").run();
    live.close();
    const result = await cli('backup', '--to', destination);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(destination);
    const eventsCopy = join(scratch, `backup-${counter}.events.db`);
    expect(result.stdout).toContain(eventsCopy);
    readDatabase(eventsCopy, (db) => expect(db.prepare('SELECT site_id, id FROM events').all()).toEqual([{ site_id: 'blog', id: 'x' }]));

    readDatabase(destination, (db) => {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
      expect(db.prepare('SELECT slug, name FROM workspaces ORDER BY slug').all()).toEqual([
        { slug: 'acme', name: 'Acme' },
        { slug: 'beta', name: 'Beta' },
      ]);
      expect(db.prepare('SELECT id FROM sites').all()).toEqual([{ id: 'blog' }]);
    });

    const again = await cli('backup', '--to', destination);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    // The first backup is untouched.
    expect(readDatabase(destination, (db) => db.prepare('SELECT count(*) AS n FROM workspaces').get())).toEqual({ n: 2 });
  });

  it('--json reports the destinations and page counts (no key before a secret is sealed); an existing event log copy is refused too', async () => {
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    const destination = join(scratch, `backup-json-${counter}`);
    const report = parseJsonOutput(await cli('backup', '--to', destination, '--json'));
    expect(report).toEqual({ to: destination, events_to: `${destination}.events.db`, key_to: null, pages: expect.any(Number), event_pages: expect.any(Number) });
    expect(existsSync(`${destination}.secrets.key`)).toBe(false);
    expect(report.pages).toBeGreaterThan(0);
    const other = join(scratch, `other-${counter}.db`);
    writeFileSync(join(scratch, `other-${counter}.events.db`), '');
    const refused = await cli('backup', '--to', other);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`other-${counter}.events.db already exists`);
    expect(existsSync(other)).toBe(false);
  });

  it('copies the secrets key beside the database (0600), so a restored data directory opens the sealed secrets; an existing key copy is refused', async () => {
    const secret = 'whsec_backedUp0123456789abcdef';
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    await cli('site', 'create', '--workspace', 'acme', '--id', 'blog', '--name', 'Blog');
    expect((await cli('webhook-secret', 'set', '--site', 'blog', '--adapter', 'stripe', '--secret', secret)).code).toBe(0);
    const destination = join(scratch, `backup-key-${counter}.db`);
    const keyCopy = join(scratch, `backup-key-${counter}.secrets.key`);
    const result = await cli('backup', '--to', destination, '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(parseJsonOutput(result)).toMatchObject({ to: destination, key_to: keyCopy });
    expect(statSync(keyCopy).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyCopy, 'utf8')).toBe(readFileSync(join(dataDir, 'secrets.key'), 'utf8'));

    // A restore into an empty directory: the two database files and the key, under their DATA_DIR names.
    const restored = join(scratch, `restored-${counter}`);
    mkdirSync(restored, { mode: 0o700 });
    copyFileSync(destination, join(restored, 'sightline.db'));
    copyFileSync(join(scratch, `backup-key-${counter}.events.db`), join(restored, 'events.db'));
    copyFileSync(keyCopy, join(restored, 'secrets.key'));
    const { openSecret } = await import('../../src/secrets/secret-box.ts');
    const sealed = readDatabase(join(restored, 'sightline.db'), (db) => db.prepare("SELECT sealed FROM webhook_secrets WHERE site_id = 'blog'").pluck().get()) as Buffer;
    expect(openSecret(restored, sealed, 'blog/stripe').toString('utf8')).toBe(secret);

    const other = join(scratch, `other-key-${counter}.db`);
    writeFileSync(join(scratch, `other-key-${counter}.secrets.key`), '');
    const refused = await cli('backup', '--to', other);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`other-key-${counter}.secrets.key already exists`);
    expect(existsSync(other)).toBe(false);
  });
});
