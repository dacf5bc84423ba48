// `sightline user` and `sightline member` on the bundled CLI: the first account of a fresh install with its one-time
// set-password link printed once (the token stored only as its hash), roles, refusals and unknown flags.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { ensureBuilt, parseJsonOutput, readDatabase, runCli } from '../cli/cli-helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-users-'));
const dataDir = join(scratch, 'data');
const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });

vi.setConfig({ testTimeout: 120_000 });
beforeAll(ensureBuilt, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('user and member commands', () => {
  it('creates an owner with a one-time set-password link, lists, adds and removes members, disables', async () => {
    expect((await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme')).code).toBe(0);
    const created = await cli('user', 'create', '--email', 'Boss@Example.com', '--workspace', 'acme', '--role', 'owner', '--json');
    expect(created.code, created.stderr).toBe(0);
    const answer = parseJsonOutput(created);
    expect(answer).toMatchObject({ user: { email: 'boss@example.com', operator: false }, membership: { workspace: 'acme', role: 'owner' } });
    // PUBLIC_URL unset: the link points at the server's HOST:PORT; the token is stored as its SHA-256 only.
    const token = /^http:\/\/[^/]+\/#\/set-password\?token=(pwl_[A-Za-z0-9_-]{43})$/.exec(answer.set_password_url)?.[1];
    expect(token, answer.set_password_url).toBeDefined();
    expect(answer).not.toHaveProperty('initial_password');
    const stored = readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare('SELECT token_hash FROM password_links').pluck().get() as Buffer);
    expect(stored.equals(createHash('sha256').update(token!).digest())).toBe(true);

    expect((await cli('user', 'create', '--email', 'boss@example.com')).code).toBe(1);
    expect((await cli('user', 'create', '--email', 'x@example.com', '--role', 'owner')).stderr).toMatch(/--workspace/);
    expect((await cli('user', 'create', '--email', 'x@example.com', '--workspace', 'acme', '--role', 'boss')).stderr).toMatch(/--role.*must be one of/);
    expect((await cli('user', 'create', '--email', 'x@example.com', '--admin')).code).toBe(1);

    const op = await cli('user', 'create', '--email', 'ops@example.com', '--operator');
    expect(op.stdout).toMatch(/Created user .* \(ops@example\.com\), operator\nSet-password link \(shown once, works once until \S+\): http:\/\/\S+\/#\/set-password\?token=pwl_[A-Za-z0-9_-]{43}\n/);
    expect((await cli('member', 'add', '--workspace', 'acme', '--user', 'ops@example.com', '--role', 'viewer')).code).toBe(0);
    expect((await cli('member', 'remove', '--workspace', 'acme', '--user', 'boss@example.com')).stderr).toMatch(/last_owner/);
    expect((await cli('member', 'remove', '--workspace', 'acme', '--user', 'ops@example.com')).code).toBe(0);
    expect((await cli('user', 'disable', '--user', 'ops@example.com')).stdout).toMatch(/Disabled user/);
    const listed = parseJsonOutput(await cli('user', 'list', '--json'));
    expect(listed.users.map((u: { email: string; disabled_at: string | null }) => [u.email, u.disabled_at !== null])).toEqual([
      ['boss@example.com', false],
      ['ops@example.com', true],
    ]);
    const audit = readDatabase(join(dataDir, 'sightline.db'), (db) => db.prepare("SELECT action, actor_kind FROM audit_log WHERE action LIKE 'member.%' ORDER BY ts").all());
    expect(audit).toEqual([
      { action: 'member.add', actor_kind: 'system' },
      { action: 'member.add', actor_kind: 'system' },
      { action: 'member.remove', actor_kind: 'system' },
    ]);
  });
});
