// Tenant isolation of the administration endpoints: a foreign workspace, site or key answers exactly like a missing
// one (byte-identical 404), every failed authentication answers the same 401 whether the workspace exists or not,
// and no refused request writes anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, settledTableCounts, testAdminToken, type TestServer } from '../_setup.ts';
import { createKey, createRevokedKey, manualClock, prefixes } from './_helpers.ts';

interface Endpoint {
  method: string;
  /** `{slug}`, `{alphaKey}` and `{betaKey}` are filled in at run time. */
  url: string;
  body?: unknown;
}

/** Every administration endpoint that names a workspace, aimed at alpha's own resources. */
const workspaceEndpoints: Endpoint[] = [
  { method: 'GET', url: '/workspaces/{slug}' },
  { method: 'PATCH', url: '/workspaces/{slug}', body: { name: 'Hijacked' } },
  { method: 'GET', url: '/workspaces/{slug}/sites' },
  { method: 'POST', url: '/workspaces/{slug}/sites', body: { id: 'planted', name: 'Planted' } },
  { method: 'DELETE', url: '/workspaces/{slug}/sites/alpha-site' },
  { method: 'GET', url: '/workspaces/{slug}/keys' },
  { method: 'POST', url: '/workspaces/{slug}/keys', body: { label: 'Planted', scopes: ['admin'] } },
  { method: 'DELETE', url: '/workspaces/{slug}/keys/{alphaKey}' },
  { method: 'GET', url: '/workspaces/{slug}/audit' },
];

const globalEndpoints: Endpoint[] = [
  { method: 'GET', url: '/workspaces' },
  { method: 'POST', url: '/workspaces', body: { name: 'Planted', slug: 'planted' } },
];

const endpointName = (endpoint: Endpoint) => `${endpoint.method} ${endpoint.url}`;

describe.each(prefixes)('isolation under "%s"', (prefix) => {
  let server: TestServer;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  let notFoundText: string;
  let unauthorizedText: string;

  beforeAll(async () => {
    // Hundreds of failed authentications from one address: the throttle of failures (test/http/auth-throttle.test.ts)
    // is opened wide so that each answer here is the 401 itself.
    server = await startTestServer({ clock: manualClock('2026-07-01T00:00:00.000Z'), env: { AUTH_FAILURE_BURST: '1000000' } });
    const alpha = await seedWorkspace(server, 'alpha', { sites: ['alpha-site'], scopes: ['admin'] });
    const beta = await seedWorkspace(server, 'beta', { sites: ['beta-site'], scopes: ['admin'] });
    tokens.alphaAdmin = alpha.key!;
    tokens.betaAdmin = beta.key!;
    ids.alphaKey = (await createKey(server, 'alpha', ['query:read'], 'target')).id;
    ids.betaKey = (await createKey(server, 'beta', ['query:read'], 'target')).id;
    tokens.alphaRevoked = (await createRevokedKey(server, 'alpha', ['admin'])).plaintext;
    // The reference answers every other refusal must equal byte for byte.
    notFoundText = (await server.request('GET', `${prefix}/workspaces/does-not-exist`)).text;
    unauthorizedText = (await server.request('GET', `${prefix}/workspaces`, { token: null })).text;
  });
  afterAll(() => server.close());

  it('the reference answers are the flat not_found and unauthorized envelopes', () => {
    expect(JSON.parse(notFoundText)).toEqual({ error: 'not_found', message: expect.any(String) });
    expect(JSON.parse(unauthorizedText)).toEqual({ error: 'unauthorized', message: expect.any(String) });
  });

  /** Everything a refused request could have changed, except last_used_at (a valid key's use is recorded). */
  async function snapshot() {
    return {
      counts: await settledTableCounts(server),
      workspaces: server.db.prepare('SELECT * FROM workspaces ORDER BY id').all(),
      sites: server.db.prepare('SELECT * FROM sites ORDER BY id').all(),
      keys: server.db.prepare('SELECT id, workspace_id, label, scopes, key_hash, created_at, revoked_at FROM api_keys ORDER BY id').all(),
    };
  }

  function urlOf(endpoint: Endpoint, slug: string, overrides: Record<string, string> = {}): string {
    return (
      prefix +
      endpoint.url
        .replace('{slug}', slug)
        .replace('{alphaKey}', overrides.alphaKey ?? ids.alphaKey!)
        .replace('{betaKey}', ids.betaKey!)
    );
  }

  async function expectRefused(
    method: string,
    url: string,
    options: { token?: string | null; headers?: Record<string, string>; body?: unknown },
    status: 401 | 404,
  ): Promise<void> {
    const before = await snapshot();
    const response = await server.request(method, url, options);
    expect(response.status, `${method} ${url}: ${response.text}`).toBe(status);
    expect(response.text).toBe(status === 404 ? notFoundText : unauthorizedText);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await snapshot()).toEqual(before);
  }

  describe('a foreign workspace answers like a missing one (404, byte-identical, nothing written)', () => {
    it.each(workspaceEndpoints.map((endpoint) => [endpointName(endpoint), endpoint] as const))('%s with an admin-scoped key of another workspace', async (_name, endpoint) => {
      await expectRefused(endpoint.method, urlOf(endpoint, 'alpha'), { token: tokens.betaAdmin, body: endpoint.body }, 404);
    });

    it.each(workspaceEndpoints.map((endpoint) => [endpointName(endpoint), endpoint] as const))('%s on a missing workspace, whoever asks', async (_name, endpoint) => {
      for (const token of [testAdminToken, tokens.alphaAdmin!, tokens.betaAdmin!]) {
        await expectRefused(endpoint.method, urlOf(endpoint, 'ghost'), { token, body: endpoint.body }, 404);
      }
    });

    const withBodies = workspaceEndpoints.filter((endpoint) => endpoint.body !== undefined);
    it.each(withBodies.map((endpoint) => [endpointName(endpoint), endpoint] as const))('%s with an invalid body still answers 404 to a foreign key', async (_name, endpoint) => {
      await expectRefused(endpoint.method, urlOf(endpoint, 'alpha'), { token: tokens.betaAdmin, body: { nonsense: true } }, 404);
    });
  });

  describe('a foreign or missing site or key answers 404 too', () => {
    const cases: { name: string; method: string; url: string; token: 'admin' | 'alphaAdmin' | 'betaAdmin' }[] = [
      { name: 'a missing site, admin token', method: 'DELETE', url: '/workspaces/alpha/sites/ghost-site', token: 'admin' },
      { name: "another workspace's site through alpha, admin token", method: 'DELETE', url: '/workspaces/alpha/sites/beta-site', token: 'admin' },
      { name: "alpha's site through beta, admin token", method: 'DELETE', url: '/workspaces/beta/sites/alpha-site', token: 'admin' },
      { name: 'a missing key, admin token', method: 'DELETE', url: '/workspaces/alpha/keys/00000000-0000-4000-8000-000000000000', token: 'admin' },
      { name: 'a missing key, admin-scoped key', method: 'DELETE', url: '/workspaces/alpha/keys/00000000-0000-4000-8000-000000000000', token: 'alphaAdmin' },
      { name: "another workspace's key through alpha, admin token", method: 'DELETE', url: '/workspaces/alpha/keys/{betaKey}', token: 'admin' },
      { name: "another workspace's key through alpha, alpha's admin-scoped key", method: 'DELETE', url: '/workspaces/alpha/keys/{betaKey}', token: 'alphaAdmin' },
      { name: "alpha's key through beta, beta's admin-scoped key", method: 'DELETE', url: '/workspaces/beta/keys/{alphaKey}', token: 'betaAdmin' },
    ];

    it.each(cases)('$name', async (scenario) => {
      const token = scenario.token === 'admin' ? testAdminToken : tokens[scenario.token]!;
      await expectRefused(scenario.method, urlOf({ method: scenario.method, url: scenario.url }, 'alpha'), { token }, 404);
    });

    it('the targets of those attempts are untouched', () => {
      expect(server.db.prepare("SELECT id FROM sites WHERE id IN ('alpha-site', 'beta-site') ORDER BY id").all()).toEqual([{ id: 'alpha-site' }, { id: 'beta-site' }]);
      for (const id of [ids.alphaKey, ids.betaKey]) expect(server.db.prepare('SELECT revoked_at FROM api_keys WHERE id = ?').get(id)).toEqual({ revoked_at: null });
    });
  });

  describe('every failed authentication is the same 401, for existing and missing workspaces alike', () => {
    /** Authorization headers that must not authenticate (null: no header at all). */
    const credentials: { name: string; header: () => string | null }[] = [
      { name: 'no Authorization header', header: () => null },
      { name: 'a revoked key', header: () => `Bearer ${tokens.alphaRevoked}` },
      { name: '"Bearer" alone', header: () => 'Bearer' },
      { name: 'an empty header', header: () => '' },
      { name: '"Bearer x y"', header: () => 'Bearer x y' },
      { name: 'a 5000-character token', header: () => `Bearer ${'x'.repeat(5000)}` },
      { name: 'a 5000-character sk_ token', header: () => `Bearer sk_alpha_${'A'.repeat(4992)}` },
      { name: 'a non-sk token', header: () => 'Bearer not-a-key-0123456789' },
      { name: 'a well-formed key nobody issued', header: () => `Bearer sk_alpha_${'A'.repeat(32)}` },
      { name: 'a real key with its last character changed', header: () => `Bearer ${tokens.alphaAdmin!.slice(0, -1)}${tokens.alphaAdmin!.endsWith('A') ? 'B' : 'A'}` },
      { name: 'the admin token with one character more', header: () => `Bearer ${testAdminToken}x` },
      { name: 'the admin token twice', header: () => `Bearer ${testAdminToken} ${testAdminToken}` },
      { name: 'the admin token under the Basic scheme', header: () => `Basic ${Buffer.from(`admin:${testAdminToken}`).toString('base64')}` },
      { name: 'the admin token without a scheme', header: () => testAdminToken },
    ];

    const endpoints = [...globalEndpoints, ...workspaceEndpoints];
    const cases = credentials.flatMap((credential) => endpoints.map((endpoint) => [credential.name, endpointName(endpoint), credential, endpoint] as const));

    it.each(cases)('%s → %s', async (_credentialName, _endpointName, credential, endpoint) => {
      const header = credential.header();
      const options = header === null ? { token: null, body: endpoint.body } : { headers: { authorization: header }, body: endpoint.body };
      for (const slug of ['alpha', 'ghost']) await expectRefused(endpoint.method, urlOf(endpoint, slug), options, 401);
    });
  });

  it('after all of the above, alpha and beta hold exactly what was seeded', async () => {
    const alpha = await server.request('GET', `${prefix}/workspaces/alpha`);
    expect(alpha.body.name).toBe('Workspace alpha');
    const sites = await server.request('GET', `${prefix}/workspaces/alpha/sites`);
    expect((sites.body.sites as { id: string }[]).map((site) => site.id)).toEqual(['alpha-site']);
    const keys = await server.request('GET', `${prefix}/workspaces/alpha/keys`);
    expect((keys.body.keys as { label: string }[]).map((key) => key.label).sort()).toEqual(['revoked', 'seed', 'target']);
    const audit = await server.request('GET', `${prefix}/workspaces/alpha/audit`);
    expect((audit.body.entries as { action: string }[]).map((entry) => entry.action)).toEqual([
      'key.revoke',
      'key.create',
      'key.create',
      'key.create',
      'site.create',
      'workspace.create',
    ]);
  });
});
