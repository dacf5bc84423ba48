// `sightline serve` as a real child process: the ready line, the admin token's first start, signals, the CLI
// working on the same DATA_DIR while the server runs, and flags winning over environment variables.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt, parseJsonOutput, readDatabase, repositoryRoot, runCli, type ServerProcess, startCli, stopIfRunning } from './cli-helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-serve-'));
const started: ServerProcess[] = [];

const readyLine = /listening on (http:\/\/\S+)/;
const tokenLine = /Admin token \(saved to (\S+), shown only this once\): (\S+)/;

function serve(args: string[], variables: Record<string, string | undefined>): ServerProcess {
  const server = startCli(['serve', ...args], variables);
  started.push(server);
  return server;
}

async function stopWith(server: ServerProcess, signal: NodeJS.Signals) {
  server.child.kill(signal);
  return server.exited;
}

// Each test runs several node processes; on a busy machine that can be slow. Nothing here asserts a duration.
vi.setConfig({ testTimeout: 120_000 });
beforeAll(ensureBuilt, 120_000);
afterEach(async () => {
  for (const server of started.splice(0)) await stopIfRunning(server);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('serve', () => {
  it('first start prints the ready line and the admin token once; the CLI works beside it; SIGTERM exits 0', async () => {
    // A data dir that does not exist yet: serve creates it.
    const dataDir = join(scratch, 'first-start', 'data');
    const first = serve(['--port', '0'], { DATA_DIR: dataDir });
    const url = (await first.waitForOutput(readyLine))[1]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const [, tokenPath, token] = await first.waitForOutput(tokenLine);
    expect(tokenPath).toBe(join(dataDir, 'admin-token'));
    expect(token).toMatch(/^sla_[A-Za-z0-9_-]{40,}$/);
    expect(statSync(join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);

    // The CLI reads the same token the server printed.
    const printed = await runCli(['admin-token'], { DATA_DIR: dataDir });
    expect(printed).toMatchObject({ code: 0, stdout: `${token}\n` });

    // CLI mutations on the data dir of a running server are visible through the server at once.
    const created = await runCli(['workspace', 'create', '--name', 'Live', '--slug', 'live', '--json'], { DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    const workspace = parseJsonOutput(created);
    expect((await runCli(['site', 'create', '--workspace', 'live', '--id', 'live-site', '--name', 'Live site'], { DATA_DIR: dataDir })).code).toBe(0);

    const auth = { authorization: `Bearer ${token}` };
    const listed = await fetch(`${url}/workspaces`, { headers: auth });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ workspaces: [workspace], next_cursor: null });
    const sites = await fetch(`${url}/v1/workspaces/live/sites`, { headers: auth });
    expect((await sites.json()).sites.map((site: { id: string }) => site.id)).toEqual(['live-site']);
    const audit = await fetch(`${url}/workspaces/live/audit`, { headers: auth });
    const entries = (await audit.json()).entries as { action: string; actor_kind: string }[];
    expect(entries.map((entry) => [entry.action, entry.actor_kind])).toEqual([
      ['site.create', 'system'],
      ['workspace.create', 'system'],
    ]);

    // A workspace created over HTTP is visible to the CLI, and a key created by the CLI authenticates at the server.
    const overHttp = await fetch(`${url}/workspaces`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Over HTTP', slug: 'http' }),
    });
    expect(overHttp.status).toBe(201);
    const cliList = parseJsonOutput(await runCli(['workspace', 'list', '--json'], { DATA_DIR: dataDir }));
    expect(cliList.workspaces.map((w: { slug: string }) => w.slug)).toEqual(['live', 'http']);
    const key = parseJsonOutput(await runCli(['key', 'create', '--workspace', 'live', '--label', 'k', '--scopes', 'admin', '--json'], { DATA_DIR: dataDir }));
    const withKey = await fetch(`${url}/workspaces/live/keys`, { headers: { authorization: `Bearer ${key.plaintext}` } });
    expect(withKey.status).toBe(200);
    expect((await runCli(['key', 'revoke', '--workspace', 'live', '--id', key.id], { DATA_DIR: dataDir })).code).toBe(0);
    const revoked = await fetch(`${url}/workspaces/live/keys`, { headers: { authorization: `Bearer ${key.plaintext}` } });
    expect(revoked.status).toBe(401);

    // An online backup while the server runs.
    const backupFile = join(scratch, 'online-backup.db');
    expect((await runCli(['backup', '--to', backupFile], { DATA_DIR: dataDir })).code).toBe(0);
    expect(readDatabase(backupFile, (db) => db.prepare('SELECT slug FROM workspaces ORDER BY created_at').all())).toEqual([
      { slug: 'live' },
      { slug: 'http' },
    ]);

    expect((await runCli(['doctor'], { DATA_DIR: dataDir })).code).toBe(0);

    expect(await stopWith(first, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(first.stdout.match(/Admin token/g)).toHaveLength(1);

    // A second start on the same data dir keeps the token and does not print it.
    const second = serve(['--port', '0'], { DATA_DIR: dataDir });
    const secondUrl = (await second.waitForOutput(readyLine))[1]!;
    const again = await fetch(`${secondUrl}/workspaces`, { headers: auth });
    expect(again.status).toBe(200);
    expect((await again.json()).workspaces.map((w: { slug: string }) => w.slug)).toEqual(['live', 'http']);
    expect(await stopWith(second, 'SIGINT')).toEqual({ code: 0, signal: null });
    expect(second.stdout).not.toContain('Admin token');
    expect(second.stdout + second.stderr).not.toContain(token);
    expect(statSync(join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);
  });

  it('a signal sent the moment the ready line appears still drains and exits 0', async () => {
    // The ready line is printed inside startServer; the signal handlers must already be installed by then.
    const dataDir = join(scratch, 'instant-signal');
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGTERM', 'SIGINT'] as const) {
      const server = serve(['--port', '0'], { DATA_DIR: dataDir });
      server.child.stdout!.on('data', (chunk: Buffer | string) => {
        if (String(chunk).includes('listening on http://') && server.child.exitCode === null) server.child.kill(signal);
      });
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(server.stdout).toContain(`${signal} received, draining`);
    }
  });

  it('with ADMIN_TOKEN set, writes no token file and prints no token', async () => {
    const dataDir = join(scratch, 'env-token');
    const server = serve(['--port', '0'], { DATA_DIR: dataDir, ADMIN_TOKEN: 'env-admin-token-0123456789' });
    const url = (await server.waitForOutput(readyLine))[1]!;
    expect((await fetch(`${url}/workspaces`, { headers: { authorization: 'Bearer env-admin-token-0123456789' } })).status).toBe(200);
    expect((await fetch(`${url}/workspaces`, { headers: { authorization: 'Bearer something-else' } })).status).toBe(401);
    expect(await stopWith(server, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(server.stdout).not.toContain('Admin token');
    expect(server.stdout).not.toContain('env-admin-token');
    expect(() => statSync(join(dataDir, 'admin-token'))).toThrow();
  });
});

describe('flags win over environment variables', () => {
  it("serve takes a flag for every variable of the README's configuration table, and no other", async () => {
    const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
    const table = readme.split('\n## Configuration\n')[1]!.split('\n\n').find((block) => block.startsWith('| Variable |'))!;
    const variables = table.split('\n').slice(2).map((row) => row.split('|')[1]!.trim());
    expect(variables).toContain('SYNCHRONOUS');
    const help = await runCli(['serve', '--help'], {});
    expect(help.code).toBe(0);
    const flags = [...help.stdout.matchAll(/^\s+--([a-z-]+)=</gm)].map((match) => match[1]);
    expect(flags.sort()).toEqual(variables.map((name) => name.toLowerCase().replaceAll('_', '-')).sort());
  });

  it('an invalid PORT alone is refused; --port 0 overrides it', async () => {
    const dataDir = join(scratch, 'port');
    const refused = await runCli(['serve'], { DATA_DIR: dataDir, PORT: 'not-a-port' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('PORT');

    const server = serve(['--port', '0'], { DATA_DIR: dataDir, PORT: 'not-a-port' });
    const url = (await server.waitForOutput(readyLine))[1]!;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await stopWith(server, 'SIGTERM')).toEqual({ code: 0, signal: null });
  });

  it('--host and --data-dir override HOST and DATA_DIR', async () => {
    const fromFlag = join(scratch, 'data-from-flag');
    const fromEnvironment = join(scratch, 'data-from-env');
    const server = serve(['--port', '0', '--host', '127.0.0.1', '--data-dir', fromFlag], {
      HOST: 'not-a-resolvable-host.invalid',
      DATA_DIR: fromEnvironment,
    });
    const [, url] = await server.waitForOutput(readyLine);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const [, tokenPath] = await server.waitForOutput(tokenLine);
    expect(tokenPath).toBe(join(fromFlag, 'admin-token'));
    expect(statSync(join(fromFlag, 'sightline.db')).isFile()).toBe(true);
    expect(() => statSync(fromEnvironment)).toThrow();
    expect(await stopWith(server, 'SIGTERM')).toEqual({ code: 0, signal: null });
  });
});
