// DATA_DIR is private: the real server and CLI (child processes under a permissive umask) create the directory 0700
// and every file 0600, in-process opens do too, and `doctor` warns on looser modes without changing them.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/db/open.ts';
import { ensureBuilt, parseJsonOutput, runCli, type ServerProcess, startCli, stopIfRunning } from './cli-helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-modes-'));
const started: ServerProcess[] = [];
let umaskBefore: number;

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every entry of `directory` with its mode, so a failure names each file that is too open. */
function modesIn(directory: string): Record<string, string> {
  return Object.fromEntries(readdirSync(directory).map((name) => [name, modeOf(join(directory, name)).toString(8)]));
}

interface DoctorCheck {
  name: string;
  ok: boolean;
  warning?: true;
  detail: string;
}

// Each test runs several node processes; on a busy machine that can be slow. Nothing here asserts a duration.
vi.setConfig({ testTimeout: 120_000 });
beforeAll(async () => {
  // The usual umask of a shell or a service manager: without Sightline's own modes, files would come out 0644 and
  // directories 0755. Children inherit it.
  umaskBefore = process.umask(0o022);
  await ensureBuilt();
}, 120_000);
afterEach(async () => {
  for (const server of started.splice(0)) await stopIfRunning(server);
});
afterAll(() => {
  process.umask(umaskBefore);
  rmSync(scratch, { recursive: true, force: true });
});

describe('files the server and the CLI create', () => {
  it('serve (with the writer thread) and backup: the directory is 0700, every file 0600', async () => {
    const dataDir = join(scratch, 'serve', 'data');
    const server = startCli(['serve', '--port', '0'], { DATA_DIR: dataDir, INGEST_WRITER: 'thread' });
    started.push(server);
    const url = (await server.waitForOutput(/listening on (http:\/\/\S+)/))[1]!;
    await server.waitForOutput(/Admin token \(saved to /);

    expect((await runCli(['workspace', 'create', '--name', 'Modes', '--slug', 'modes'], { DATA_DIR: dataDir })).code).toBe(0);
    expect((await runCli(['site', 'create', '--workspace', 'modes', '--id', 'modes-site', '--name', 'Modes'], { DATA_DIR: dataDir })).code).toBe(0);
    // Creates the secrets key.
    expect((await runCli(['webhook-secret', 'set', '--site', 'modes-site', '--adapter', 'stripe', '--secret', 'whsec_modes0123456789abcdef'], { DATA_DIR: dataDir })).code).toBe(0);
    const event = { id: crypto.randomUUID(), site_id: 'modes-site', anon_id: 'a', ts: new Date().toISOString(), type: 'pageview', url: 'https://example.com/' };
    const ingested = await fetch(`${url}/events`, { method: 'POST', headers: { authorization: 'Bearer modes-site', 'content-type': 'application/json' }, body: JSON.stringify(event) });
    expect(ingested.status).toBe(202);

    const backupDir = join(scratch, 'backups');
    mkdirSync(backupDir, { mode: 0o700 });
    const backup = join(backupDir, 'copy.db');
    expect((await runCli(['backup', '--to', backup], { DATA_DIR: dataDir })).code).toBe(0);

    // Both the parent the server had to create and DATA_DIR itself.
    expect(modeOf(join(scratch, 'serve')).toString(8)).toBe('700');
    expect(modeOf(dataDir).toString(8)).toBe('700');
    const expected = ['admin-token', 'events.db', 'events.db-shm', 'events.db-wal', 'secrets.key', 'sightline.db', 'sightline.db-shm', 'sightline.db-wal'];
    expect(modesIn(dataDir)).toEqual(Object.fromEntries(expected.map((name) => [name, '600'])));
    expect(modesIn(backupDir)).toEqual({ 'copy.db': '600', 'copy.events.db': '600', 'copy.secrets.key': '600' });
  });

  it('a CLI command on a fresh DATA_DIR creates it 0700 with 0600 files', async () => {
    const dataDir = join(scratch, 'cli-only', 'data');
    expect((await runCli(['workspace', 'create', '--name', 'Cli', '--slug', 'cli'], { DATA_DIR: dataDir })).code).toBe(0);
    expect(modeOf(dataDir).toString(8)).toBe('700');
    const modes = Object.values(modesIn(dataDir));
    expect(modes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(modes)).toEqual(new Set(['600']));
  });

  it('openDatabase in any process (a test, a worker) creates both files and their WALs 0600', () => {
    const dataDir = join(scratch, 'in-process', 'data');
    const db = openDatabase(join(dataDir, 'sightline.db'));
    try {
      db.prepare("INSERT INTO events (site_id, dedup_key, type_stored, ts, received_after_ts, source_stored, raw_packed) VALUES ('s', 1, 'click', 1, 0, 'direct', sightline_pack_raw('s', 1, '{\"id\":\"x\",\"anon_id\":\"a\"}'))").run();
      expect(modeOf(dataDir).toString(8)).toBe('700');
      const modes = modesIn(dataDir);
      expect(Object.keys(modes).sort()).toEqual(['events.db', 'events.db-shm', 'events.db-wal', 'sightline.db', 'sightline.db-shm', 'sightline.db-wal']);
      expect(new Set(Object.values(modes))).toEqual(new Set(['600']));
    } finally {
      db.close();
    }
  });
});

describe('doctor on file modes', () => {
  const doctor = async (dataDir: string) => {
    const result = await runCli(['doctor', '--json'], { DATA_DIR: dataDir });
    return { code: result.code, checks: parseJsonOutput<{ checks: DoctorCheck[] }>(result).checks, human: (await runCli(['doctor'], { DATA_DIR: dataDir })).stdout };
  };
  const warnings = (checks: DoctorCheck[]) => checks.filter((check) => check.warning).map((check) => check.name);

  it('says nothing about a private data dir', async () => {
    const dataDir = join(scratch, 'doctor-ok', 'data');
    expect((await runCli(['workspace', 'create', '--name', 'Ok', '--slug', 'ok'], { DATA_DIR: dataDir })).code).toBe(0);
    const report = await doctor(dataDir);
    expect(report.code).toBe(0);
    expect(warnings(report.checks)).toEqual([]);
    expect(report.checks.find((check) => check.name === 'data directory mode')).toMatchObject({ ok: true, detail: '0700' });
    expect(report.checks.find((check) => check.name === 'sightline.db mode')).toMatchObject({ ok: true, detail: '0600' });
    expect(report.human).not.toMatch(/WARN|FAIL/);
  });

  it('warns (exit 0) on a 0755 directory, a 0644 database file and a 0644 secrets key, and leaves them as they are', async () => {
    const dataDir = join(scratch, 'doctor-loose', 'data');
    expect((await runCli(['workspace', 'create', '--name', 'Loose', '--slug', 'loose'], { DATA_DIR: dataDir })).code).toBe(0);
    expect((await runCli(['site', 'create', '--workspace', 'loose', '--id', 'loose-site', '--name', 'Loose'], { DATA_DIR: dataDir })).code).toBe(0);
    expect((await runCli(['webhook-secret', 'set', '--site', 'loose-site', '--adapter', 'stripe', '--secret', 'whsec_loose0123456789abcdef'], { DATA_DIR: dataDir })).code).toBe(0);
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'sightline.db'), 0o644);
    chmodSync(join(dataDir, 'events.db'), 0o640);
    chmodSync(join(dataDir, 'secrets.key'), 0o644);

    const report = await doctor(dataDir);
    expect(report.code).toBe(0);
    expect(warnings(report.checks)).toEqual(['data directory mode', 'sightline.db mode', 'events.db mode', 'secrets.key mode']);
    expect(report.checks.find((check) => check.name === 'secrets.key mode')!.detail).toBe(`0644: readable by group or others (chmod 600 ${join(dataDir, 'secrets.key')})`);
    expect(report.checks.find((check) => check.name === 'data directory mode')!.detail).toBe(`0755: readable by group or others (chmod 700 ${dataDir})`);
    expect(report.checks.find((check) => check.name === 'sightline.db mode')!.detail).toBe(`0644: readable by group or others (chmod 600 ${join(dataDir, 'sightline.db')})`);
    expect(report.human).toMatch(/^data directory mode\s+WARN\s+0755: /m);
    expect(report.human).toMatch(/^sightline\.db mode\s+WARN\s+0644: /m);
    expect(report.human).not.toContain('FAIL');
    // An operator's modes are reported, never changed.
    expect(modeOf(dataDir)).toBe(0o755);
    expect(modeOf(join(dataDir, 'sightline.db'))).toBe(0o644);
    expect(modeOf(join(dataDir, 'secrets.key'))).toBe(0o644);
  });
});
