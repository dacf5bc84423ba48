// The administration commands of the real CLI (workspace, site, key), their refusals, and their audit rows.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/db/open.ts';
import { ensureBuilt, parseJsonOutput, readDatabase, runCli } from './cli-helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sightline-cli-admin-'));
let dataDir: string;
let databaseFile: string;
let counter = 0;

/** Runs the CLI on this test's data dir. */
const cli = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });

// Each test runs several node processes; on a busy machine that can be slow. Nothing here asserts a duration.
vi.setConfig({ testTimeout: 120_000 });
beforeAll(ensureBuilt, 120_000);
beforeEach(() => {
  counter += 1;
  dataDir = join(scratch, `data-${counter}`);
  databaseFile = join(dataDir, 'sightline.db');
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const auditRows = () =>
  readDatabase(databaseFile, (db) =>
    db
      .prepare('SELECT a.action, a.actor_kind, a.actor_id, a.target, w.slug FROM audit_log a JOIN workspaces w ON w.id = a.workspace_id ORDER BY a.ts')
      .all() as { action: string; actor_kind: string; actor_id: string | null; target: string; slug: string }[],
  );

describe('workspace', () => {
  it('create prints the workspace; list shows it as a table and as JSON', async () => {
    const created = await cli('workspace', 'create', '--name', 'Acme Inc', '--slug', 'acme');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/Created workspace acme \([0-9a-f-]{36}\)/);

    const createdJson = await cli('workspace', 'create', '--name', '  Beta  ', '--slug', 'beta', '--json');
    expect(createdJson.code).toBe(0);
    const beta = parseJsonOutput(createdJson);
    expect(beta).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Beta', slug: 'beta', created_at: expect.any(String), updated_at: beta.created_at });

    const listed = await cli('workspace', 'list');
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+ID\s+CREATED$/);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/)[0])).toEqual(['acme', 'beta']);
    expect(listed.stdout).toContain('Acme Inc');
    expect(listed.stdout).toContain(beta.id);

    const listedJson = parseJsonOutput(await cli('workspace', 'list', '--json'));
    expect(listedJson.workspaces.map((w: { slug: string }) => w.slug)).toEqual(['acme', 'beta']);
    expect(listedJson.workspaces[1]).toEqual(beta);
  });

  it('an empty list prints only the header (a data directory whose database has no workspace yet, as after a first start)', async () => {
    openDatabase(databaseFile).close();
    const listed = await cli('workspace', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim()).toBe('SLUG  NAME  ID  CREATED');
    expect(parseJsonOutput(await cli('workspace', 'list', '--json'))).toEqual({ workspaces: [] });
  });

  it('a bad slug is refused with exit 1 and a message naming the field; nothing is written', async () => {
    const refused = await cli('workspace', 'create', '--name', 'Bad', '--slug', 'Bad_Slug');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('invalid_payload');
    expect(refused.stderr).toMatch(/--slug: must match \^\[a-z\]\[a-z0-9-\]\{0,63\}\$/);

    const refusedJson = await cli('workspace', 'create', '--name', 'Bad', '--slug', '9lives', '--json');
    expect(refusedJson.code).toBe(1);
    expect(JSON.parse(refusedJson.stderr)).toEqual({
      error: { code: 'invalid_payload', message: expect.any(String), details: [{ path: '/slug', message: 'must match ^[a-z][a-z0-9-]{0,63}$' }] },
    });

    const blankName = await cli('workspace', 'create', '--name', '   ', '--slug', 'ok');
    expect(blankName.code).toBe(1);
    expect(blankName.stderr).toContain('--name: must not be empty');

    // The same name rules as the API: a name of invisible characters is no name.
    const invisibleName = await cli('workspace', 'create', '--name', '\u200b\u202e', '--slug', 'ok');
    expect(invisibleName.code).toBe(1);
    expect(invisibleName.stderr).toContain('--name: must not contain control or format characters');

    expect(parseJsonOutput(await cli('workspace', 'list', '--json')).workspaces).toEqual([]);
  });

  it('a taken slug is refused with exit 1 and slug_taken; the first workspace and the audit log are unchanged', async () => {
    expect((await cli('workspace', 'create', '--name', 'First', '--slug', 'acme')).code).toBe(0);
    const before = auditRows();

    const taken = await cli('workspace', 'create', '--name', 'Second', '--slug', 'acme');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('slug_taken');
    expect(taken.stderr).toContain('acme');

    const takenJson = await cli('workspace', 'create', '--name', 'Second', '--slug', 'acme', '--json');
    expect(takenJson.code).toBe(1);
    expect(JSON.parse(takenJson.stderr).error.code).toBe('slug_taken');

    const workspaces = parseJsonOutput(await cli('workspace', 'list', '--json')).workspaces;
    expect(workspaces.map((w: { name: string }) => w.name)).toEqual(['First']);
    expect(auditRows()).toEqual(before);
  });

  it('a missing required flag is refused with exit 1', async () => {
    const refused = await cli('workspace', 'create', '--name', 'No slug');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('--slug');
  });
});

describe('site', () => {
  it('create and list, human and JSON', async () => {
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    const created = await cli('site', 'create', '--workspace', 'acme', '--id', 'blog', '--name', 'The Blog');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created site blog in acme (cookieless on)');
    const shop = parseJsonOutput(await cli('site', 'create', '--workspace', 'acme', '--id', 'shop_1', '--name', 'Shop', '--json'));
    expect(shop).toEqual({ id: 'shop_1', name: 'Shop', created_at: expect.any(String), cookieless: true, retention_days: null });

    const listed = await cli('site', 'list', '--workspace', 'acme');
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+CREATED\s+COOKIELESS$/);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/).slice(0, 2))).toEqual([
      ['blog', 'The Blog'],
      ['shop_1', 'Shop'],
    ]);
    const listedJson = parseJsonOutput(await cli('site', 'list', '--workspace', 'acme', '--json'));
    expect(listedJson.sites.map((site: { id: string }) => site.id)).toEqual(['blog', 'shop_1']);
    expect(listedJson.sites[1]).toEqual(shop);
  });

  it('an unknown workspace is refused with exit 1 (create and list)', async () => {
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    const create = await cli('site', 'create', '--workspace', 'nope', '--id', 'blog', '--name', 'Blog');
    expect(create.code).toBe(1);
    expect(create.stderr).toContain('No workspace with slug nope');
    expect(create.stderr).toContain('not_found');
    const list = await cli('site', 'list', '--workspace', 'nope');
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('No workspace with slug nope');
    expect(readDatabase(databaseFile, (db) => db.prepare('SELECT count(*) AS n FROM sites').get())).toEqual({ n: 0 });
  });

  it('a bad or taken site id is refused with exit 1', async () => {
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    await cli('workspace', 'create', '--name', 'Other', '--slug', 'other');
    const bad = await cli('site', 'create', '--workspace', 'acme', '--id', 'no spaces', '--name', 'Blog');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--id: must match');
    expect((await cli('site', 'create', '--workspace', 'acme', '--id', 'blog', '--name', 'Blog')).code).toBe(0);
    // Site ids are unique across workspaces.
    const taken = await cli('site', 'create', '--workspace', 'other', '--id', 'blog', '--name', 'Blog');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('site_id_taken');
  });

  it('sets cookieless at creation and changes it with update (audited as site.update); refuses a value other than on/off', async () => {
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    await cli('workspace', 'create', '--name', 'Other', '--slug', 'other');
    const off = parseJsonOutput(await cli('site', 'create', '--workspace', 'acme', '--id', 'classic', '--name', 'Classic', '--cookieless', 'off', '--json'));
    expect(off.cookieless).toBe(false);
    const updated = await cli('site', 'update', '--workspace', 'acme', '--id', 'classic', '--cookieless', 'on');
    expect(updated.code).toBe(0);
    expect(updated.stdout).toBe('Updated site classic: name "Classic", cookieless on, keeps its events forever\n');
    expect(readDatabase(databaseFile, (db) => db.prepare("SELECT cookieless FROM sites WHERE id = 'classic'").get())).toEqual({ cookieless: 1 });
    expect(auditRows().at(-1)).toMatchObject({ action: 'site.update', actor_kind: 'system', target: 'classic', slug: 'acme' });

    const bad = await cli('site', 'update', '--workspace', 'acme', '--id', 'classic', '--cookieless', 'maybe');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--cookieless: must be on or off');
    // Another workspace's site is as missing as one that does not exist.
    const foreign = await cli('site', 'update', '--workspace', 'other', '--id', 'classic', '--cookieless', 'off');
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('not_found');
    expect(readDatabase(databaseFile, (db) => db.prepare("SELECT cookieless FROM sites WHERE id = 'classic'").get())).toEqual({ cookieless: 1 });
  });
});

describe('key', () => {
  it('create prints the plaintext once with the warning; list never shows it; revoke sets revoked_at; a second revoke fails', async () => {
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    const created = await cli('key', 'create', '--workspace', 'acme', '--label', 'CI export', '--scopes', 'query:read, admin');
    expect(created.code).toBe(0);
    const plaintexts = created.stdout.match(/sk_[A-Za-z0-9_-]+/g) ?? [];
    expect(plaintexts).toHaveLength(1);
    const plaintext = plaintexts[0]!;
    expect(plaintext).toMatch(/^sk_acme_[A-Za-z0-9_-]{32}$/);
    expect(created.stdout).toContain('shown only once');
    expect(created.stdout).toContain('cannot be recovered');
    const keyId = /Created key ([0-9a-f-]{36}) \(query:read, admin\)/.exec(created.stdout)?.[1];
    expect(keyId).toBeDefined();

    // Only the SHA-256 of the plaintext is stored.
    const stored = readDatabase(databaseFile, (db) => db.prepare('SELECT * FROM api_keys WHERE id = ?').get(keyId)) as Record<string, unknown>;
    expect(stored.key_hash).toEqual(createHash('sha256').update(plaintext).digest());
    expect(JSON.stringify(Object.values(stored).map(String))).not.toContain(plaintext.slice(3));

    const listed = await cli('key', 'list', '--workspace', 'acme');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+LABEL\s+SCOPES\s+LAST USED\s+REVOKED$/m);
    expect(listed.stdout).toContain(keyId);
    expect(listed.stdout).toContain('query:read,admin');
    expect(listed.stdout).not.toContain('sk_');
    const listedJson = await cli('key', 'list', '--workspace', 'acme', '--json');
    expect(listedJson.stdout).not.toContain('sk_');
    expect(parseJsonOutput(listedJson).keys).toEqual([
      {
        id: keyId,
        workspace_id: expect.any(String),
        label: 'CI export',
        scopes: ['query:read', 'admin'],
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: null,
      },
    ]);

    const revoked = await cli('key', 'revoke', '--workspace', 'acme', '--id', keyId!, '--json');
    expect(revoked.code).toBe(0);
    const revokedKey = parseJsonOutput(revoked);
    expect(revokedKey).toMatchObject({ id: keyId, revoked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect(revokedKey).not.toHaveProperty('plaintext');
    const afterRevoke = parseJsonOutput(await cli('key', 'list', '--workspace', 'acme', '--json')).keys;
    expect(afterRevoke).toEqual([expect.objectContaining({ id: keyId, revoked_at: revokedKey.revoked_at })]);

    const again = await cli('key', 'revoke', '--workspace', 'acme', '--id', keyId!);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(keyId);
    expect(again.stderr).toContain('not_found');
    // The first revocation time stands.
    expect(parseJsonOutput(await cli('key', 'list', '--workspace', 'acme', '--json')).keys[0].revoked_at).toBe(revokedKey.revoked_at);
  });

  it('create --json returns the record with plaintext and warning', async () => {
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    const created = parseJsonOutput(await cli('key', 'create', '--workspace', 'acme', '--label', 'ingest', '--scopes', 'ingest:write', '--json'));
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      workspace_id: expect.any(String),
      label: 'ingest',
      scopes: ['ingest:write'],
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
      plaintext: expect.stringMatching(/^sk_acme_[A-Za-z0-9_-]{32}$/),
      warning: expect.stringContaining('shown only once'),
    });
  });

  it('refuses an unknown scope, an unknown workspace, and a key of another workspace', async () => {
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    await cli('workspace', 'create', '--name', 'Other', '--slug', 'other');
    const badScope = await cli('key', 'create', '--workspace', 'acme', '--label', 'x', '--scopes', 'admin,superuser');
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toContain('--scopes');
    expect(badScope.stderr).toContain('must be one of');
    expect(badScope.stdout).not.toContain('sk_');

    const unknownWorkspace = await cli('key', 'create', '--workspace', 'nope', '--label', 'x', '--scopes', 'admin');
    expect(unknownWorkspace.code).toBe(1);
    expect(unknownWorkspace.stderr).toContain('No workspace with slug nope');
    expect((await cli('key', 'list', '--workspace', 'nope')).code).toBe(1);

    const foreign = parseJsonOutput(await cli('key', 'create', '--workspace', 'other', '--label', 'x', '--scopes', 'admin', '--json'));
    const crossRevoke = await cli('key', 'revoke', '--workspace', 'acme', '--id', foreign.id);
    expect(crossRevoke.code).toBe(1);
    expect(parseJsonOutput(await cli('key', 'list', '--workspace', 'other', '--json')).keys[0].revoked_at).toBeNull();
  });
});

describe('audit', () => {
  it('every CLI mutation writes an audit row with actor_kind system', async () => {
    await cli('workspace', 'create', '--name', 'Acme', '--slug', 'acme');
    await cli('site', 'create', '--workspace', 'acme', '--id', 'blog', '--name', 'Blog');
    const key = parseJsonOutput(await cli('key', 'create', '--workspace', 'acme', '--label', 'ci', '--scopes', 'admin', '--json'));
    expect((await cli('key', 'revoke', '--workspace', 'acme', '--id', key.id)).code).toBe(0);
    // Refusals and reads are not audited.
    await cli('workspace', 'create', '--name', 'Again', '--slug', 'acme');
    await cli('site', 'list', '--workspace', 'acme');
    await cli('key', 'list', '--workspace', 'acme');

    expect(auditRows()).toEqual([
      { action: 'workspace.create', actor_kind: 'system', actor_id: null, target: 'acme', slug: 'acme' },
      { action: 'site.create', actor_kind: 'system', actor_id: null, target: 'blog', slug: 'acme' },
      { action: 'key.create', actor_kind: 'system', actor_id: null, target: key.id, slug: 'acme' },
      { action: 'key.revoke', actor_kind: 'system', actor_id: null, target: key.id, slug: 'acme' },
    ]);
    // Timestamps are strictly increasing within the workspace.
    const stamps = readDatabase(databaseFile, (db) => db.prepare('SELECT ts FROM audit_log ORDER BY ts').all() as { ts: string }[]).map((row) => row.ts);
    expect(new Set(stamps).size).toBe(stamps.length);
  });
});

describe('data directory', () => {
  it('--data-dir wins over $DATA_DIR', async () => {
    const fromFlag = join(scratch, `flag-${counter}`);
    const result = await runCli(['workspace', 'create', '--name', 'Flag', '--slug', 'flag', '--data-dir', fromFlag], { DATA_DIR: dataDir });
    expect(result.code).toBe(0);
    expect(existsSync(join(fromFlag, 'sightline.db'))).toBe(true);
    expect(existsSync(dataDir)).toBe(false);
    const listed = parseJsonOutput(await runCli(['workspace', 'list', '--json', '--data-dir', fromFlag], { DATA_DIR: dataDir }));
    expect(listed.workspaces.map((w: { slug: string }) => w.slug)).toEqual(['flag']);
  });
});
