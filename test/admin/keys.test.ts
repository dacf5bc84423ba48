// API keys over HTTP: create (exact shape, plaintext once), validation of label and scopes, list without secrets,
// the key lifecycle (authenticates, last_used_at, revoke → 401 at once, second revoke 404) and hash-only storage.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, settledTableCounts, type TestServer } from '../_setup.ts';
import { expectFlatError, flatError, isoPattern, manualClock, padTo, prefixes, runScenario, type Scenario, uuidPattern } from './_helpers.ts';

const keyFields = ['created_at', 'id', 'label', 'last_used_at', 'revoked_at', 'scopes', 'workspace_id'];
const plaintextOf = (slug: string) => new RegExp(`^sk_${slug}_[A-Za-z0-9_-]{32}$`);

describe.each(prefixes)('keys under "%s"', (prefix) => {
  const clock = manualClock('2026-05-10T09:00:00.000Z');
  let server: TestServer;
  let acmeId: string;
  /** Every plaintext this suite was shown, to prove none of them is ever shown or stored again. */
  const plaintexts: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ clock });
    acmeId = (await seedWorkspace(server, 'acme')).id;
    await seedWorkspace(server, 'my-shop');
    await seedWorkspace(server, 'other');
  });
  afterAll(() => server.close());

  function createdKey(slug: string, label: string, scopes: string[]) {
    return (response: { body: Record<string, unknown> }) => {
      expect(Object.keys(response.body).sort()).toEqual([...keyFields, 'plaintext', 'warning'].sort());
      expect(response.body).toEqual({
        id: expect.stringMatching(uuidPattern),
        workspace_id: slug === 'acme' ? acmeId : expect.stringMatching(uuidPattern),
        label,
        scopes,
        created_at: clock.iso(),
        last_used_at: null,
        revoked_at: null,
        plaintext: expect.stringMatching(plaintextOf(slug)),
        warning: expect.stringMatching(/\S/),
      });
      plaintexts.push(response.body.plaintext as string);
    };
  }

  describe('POST /workspaces/:slug/keys', () => {
    const label128 = padTo(128, 'k');
    const scenarios: Scenario[] = [
      { name: 'creates a query:read key', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'Dashboard', scopes: ['query:read'] }, status: 201, expect: createdKey('acme', 'Dashboard', ['query:read']) },
      { name: 'a key may hold several scopes', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'Both', scopes: ['ingest:write', 'query:read'] }, status: 201, expect: createdKey('acme', 'Both', ['ingest:write', 'query:read']) },
      {
        name: 'a key may hold every scope',
        method: 'POST',
        url: '/workspaces/acme/keys',
        body: { label: 'All', scopes: ['admin', 'integrations:write', 'query:read', 'ingest:write'] },
        status: 201,
        expect: createdKey('acme', 'All', ['admin', 'integrations:write', 'query:read', 'ingest:write']),
      },
      { name: 'the plaintext carries a slug with hyphens', method: 'POST', url: '/workspaces/my-shop/keys', body: { label: 'Shop', scopes: ['admin'] }, status: 201, expect: createdKey('my-shop', 'Shop', ['admin']) },
      { name: 'a 128-character label is accepted and stored trimmed', method: 'POST', url: '/workspaces/acme/keys', body: { label: ` ${label128} `, scopes: ['admin'] }, status: 201, expect: createdKey('acme', label128, ['admin']) },
      { name: 'a 129-character label is refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: label128 + 'k', scopes: ['admin'] }, status: 400, expect: flatError('invalid_payload', ['/label']) },
      { name: 'a whitespace-only label is refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: '  ', scopes: ['admin'] }, status: 400, expect: flatError('invalid_payload', ['/label']) },
      { name: 'a missing label is refused', method: 'POST', url: '/workspaces/acme/keys', body: { scopes: ['admin'] }, status: 400, expect: flatError('invalid_payload', ['/label']) },
      { name: 'a label of only U+202E is refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: '\u202e', scopes: ['admin'] }, status: 400, expect: flatError('invalid_payload', ['/label']) },
      { name: 'a control character inside a label is refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'CI\u001bkey', scopes: ['admin'] }, status: 400, expect: flatError('invalid_payload', ['/label']) },
      { name: 'a lone surrogate in a label is refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: '\ud800', scopes: ['admin'] }, status: 400, expect: flatError('invalid_payload', ['/label']) },
      { name: 'a lone surrogate in a scope is pointed at', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'x', scopes: ['admin', '\udc00'] }, status: 400, expect: flatError('invalid_payload', ['/scopes/1']) },
      { name: 'empty scopes are refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'x', scopes: [] }, status: 400, expect: flatError('invalid_payload', ['/scopes']) },
      { name: 'missing scopes are refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'x' }, status: 400, expect: flatError('invalid_payload', ['/scopes']) },
      { name: 'an unknown scope is refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'x', scopes: ['query:read', 'read'] }, status: 400, expect: flatError('invalid_payload', ['/scopes/1']) },
      { name: 'scope names are case-sensitive', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'x', scopes: ['ADMIN'] }, status: 400, expect: flatError('invalid_payload', ['/scopes/0']) },
      { name: 'a repeated scope is refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'x', scopes: ['admin', 'query:read', 'admin'] }, status: 400, expect: flatError('invalid_payload', ['/scopes']) },
      { name: 'a scope string instead of an array is refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'x', scopes: 'admin' }, status: 400, expect: flatError('invalid_payload', ['/scopes']) },
      { name: 'a non-string scope is refused', method: 'POST', url: '/workspaces/acme/keys', body: { label: 'x', scopes: [1] }, status: 400, expect: flatError('invalid_payload', ['/scopes/0']) },
      { name: 'a key for a missing workspace is 404', method: 'POST', url: '/workspaces/nope/keys', body: { label: 'x', scopes: ['admin'] }, status: 404, expect: flatError('not_found') },
    ];

    it.each(scenarios)('$name', async (scenario) => {
      const before = await settledTableCounts(server);
      const response = await runScenario(server, prefix, {}, scenario);
      const after = await settledTableCounts(server);
      if (response.status === 201) expect(after).toEqual({ ...before, api_keys: before.api_keys! + 1, audit_log: before.audit_log! + 1 });
      else expect(after).toEqual(before);
    });

    it('every plaintext is distinct', () => {
      expect(plaintexts.length).toBeGreaterThanOrEqual(5);
      expect(new Set(plaintexts).size).toBe(plaintexts.length);
    });
  });

  describe('storage holds only a SHA-256 hash', () => {
    it('each api_keys row has a 32-byte key_hash equal to SHA-256 of the plaintext', () => {
      const rows = server.db.prepare('SELECT key_hash FROM api_keys').all() as { key_hash: Buffer }[];
      const stored = new Set(rows.map((row) => row.key_hash.toString('hex')));
      for (const row of rows) {
        expect(Buffer.isBuffer(row.key_hash)).toBe(true);
        expect(row.key_hash).toHaveLength(32);
      }
      for (const plaintext of plaintexts) expect(stored.has(createHash('sha256').update(plaintext).digest('hex'))).toBe(true);
    });

    it('no value in any table contains a plaintext or its random part', () => {
      const tables = server.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
      for (const { name } of tables) {
        for (const row of server.db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]) {
          for (const value of Object.values(row)) {
            const text = Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
            for (const plaintext of plaintexts) {
              expect(text).not.toContain(plaintext);
              expect(text).not.toContain(plaintext.slice(-32));
            }
          }
        }
      }
    });

    it('no plaintext appears anywhere in the database files (main file and WAL)', () => {
      const files = readdirSync(server.dataDir).filter((file) => file.includes('.db'));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const bytes = readFileSync(join(server.dataDir, file)).toString('latin1');
        for (const plaintext of plaintexts) expect(bytes.includes(plaintext.slice(-32))).toBe(false);
      }
    });
  });

  describe('GET /workspaces/:slug/keys', () => {
    it('lists metadata only: no plaintext, no hash, revoked keys included', async () => {
      const response = await server.request('GET', `${prefix}/workspaces/acme/keys`);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['keys', 'next_cursor']);
      expect(response.body.next_cursor).toBeNull();
      expect(response.body.keys).toHaveLength(4);
      for (const key of response.body.keys) {
        expect(Object.keys(key).sort()).toEqual(keyFields);
        expect(key.workspace_id).toBe(acmeId);
      }
      const hashes = (server.db.prepare('SELECT key_hash FROM api_keys').all() as { key_hash: Buffer }[]).map((row) => row.key_hash);
      for (const plaintext of plaintexts) expect(response.text).not.toContain(plaintext.slice(-32));
      for (const hash of hashes) {
        for (const encoding of ['hex', 'base64', 'base64url'] as const) expect(response.text).not.toContain(hash.toString(encoding));
      }
      expect(response.text).not.toMatch(/hash|plaintext|sk_/i);
    });

    it('lists only the keys of its own workspace', async () => {
      const response = await server.request('GET', `${prefix}/workspaces/other/keys`);
      expect(response.body).toEqual({ keys: [], next_cursor: null });
    });
  });

  describe('lifecycle', () => {
    let key: { id: string; plaintext: string };

    it('a created admin-scoped key authenticates on its workspace', async () => {
      const created = await server.request('POST', `${prefix}/workspaces/acme/keys`, { body: { label: 'Ops', scopes: ['admin'] } });
      expect(created.status).toBe(201);
      key = { id: created.body.id, plaintext: created.body.plaintext };
      clock.advance(5_000);
      const response = await server.request('GET', `${prefix}/workspaces/acme/keys`, { token: key.plaintext });
      expect(response.status).toBe(200);
      expect((response.body.keys as { id: string }[]).map((listed) => listed.id)).toContain(key.id);
    });

    it('sets last_used_at after use, and only on the key used', async () => {
      const response = await server.request('GET', `${prefix}/workspaces/acme/keys`);
      const keys = response.body.keys as { id: string; last_used_at: string | null }[];
      expect(keys.find((listed) => listed.id === key.id)!.last_used_at).toBe('2026-05-10T09:00:05.000Z');
      for (const other of keys.filter((listed) => listed.id !== key.id)) expect(other.last_used_at).toBeNull();
    });

    it('the key can create another key, and that one authenticates too', async () => {
      const created = await server.request('POST', `${prefix}/workspaces/acme/keys`, { token: key.plaintext, body: { label: 'Child', scopes: ['query:read'] } });
      expect(created.status).toBe(201);
      expect(created.body.plaintext).toMatch(plaintextOf('acme'));
      plaintexts.push(created.body.plaintext);
    });

    it('revoking answers the record with revoked_at and no secret', async () => {
      clock.advance(1_000);
      const response = await server.request('DELETE', `${prefix}/workspaces/acme/keys/${key.id}`);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(keyFields);
      expect(response.body).toMatchObject({ id: key.id, label: 'Ops', scopes: ['admin'], revoked_at: '2026-05-10T09:00:06.000Z' });
      expect(response.text).not.toContain(key.plaintext.slice(-32));
    });

    it('a revoked key gets 401 at once, with the same body as no credentials', async () => {
      const revoked = await server.request('GET', `${prefix}/workspaces/acme/keys`, { token: key.plaintext });
      const anonymous = await server.request('GET', `${prefix}/workspaces/acme/keys`, { token: null });
      expectFlatError(revoked, 401, 'unauthorized');
      expect(revoked.text).toBe(anonymous.text);
    });

    it('a second revoke is 404 and leaves revoked_at as it was', async () => {
      clock.advance(1_000);
      const before = await settledTableCounts(server);
      expectFlatError(await server.request('DELETE', `${prefix}/workspaces/acme/keys/${key.id}`), 404, 'not_found');
      expect(await settledTableCounts(server)).toEqual(before);
      expect(server.db.prepare('SELECT revoked_at FROM api_keys WHERE id = ?').get(key.id)).toEqual({ revoked_at: '2026-05-10T09:00:06.000Z' });
    });

    it('the list still shows the revoked key, with revoked_at set', async () => {
      const response = await server.request('GET', `${prefix}/workspaces/acme/keys`);
      expect((response.body.keys as { id: string; revoked_at: string | null }[]).find((listed) => listed.id === key.id)).toMatchObject({
        revoked_at: '2026-05-10T09:00:06.000Z',
        last_used_at: expect.stringMatching(isoPattern),
      });
    });

    it('a key can revoke itself and is refused right after', async () => {
      const self = await server.request('POST', `${prefix}/workspaces/acme/keys`, { body: { label: 'Self', scopes: ['admin'] } });
      const revoked = await server.request('DELETE', `${prefix}/workspaces/acme/keys/${self.body.id}`, { token: self.body.plaintext });
      expect(revoked.status).toBe(200);
      expectFlatError(await server.request('GET', `${prefix}/workspaces/acme/keys`, { token: self.body.plaintext }), 401, 'unauthorized');
    });

    it('a key of another workspace cannot be revoked through this one, and stays active', async () => {
      const foreign = await server.request('POST', `${prefix}/workspaces/other/keys`, { body: { label: 'Theirs', scopes: ['admin'] } });
      expectFlatError(await server.request('DELETE', `${prefix}/workspaces/acme/keys/${foreign.body.id}`), 404, 'not_found');
      expect(server.db.prepare('SELECT revoked_at FROM api_keys WHERE id = ?').get(foreign.body.id)).toEqual({ revoked_at: null });
      expect((await server.request('GET', `${prefix}/workspaces/other/keys`, { token: foreign.body.plaintext })).status).toBe(200);
    });

    it('unknown key ids are 404', async () => {
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        expectFlatError(await server.request('DELETE', `${prefix}/workspaces/acme/keys/${id}`), 404, 'not_found');
      }
    });
  });
});
