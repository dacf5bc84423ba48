// Which credential may call which administration endpoint: the admin token everywhere; an admin-scoped key of the
// workspace on keys and audit only; other scopes of the workspace get 403 forbidden_scope; keys of another
// workspace get 404. Refusals write nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, settledTableCounts, testAdminToken, type TestServer } from '../_setup.ts';
import { createKey, expectFlatError, manualClock, prefixes } from './_helpers.ts';

/** Credentials of the matrix; every `alpha*` key belongs to the workspace the endpoints address. */
const credentialScopes = {
  alphaAdmin: { slug: 'alpha', scopes: ['admin'] },
  alphaAdminAndRead: { slug: 'alpha', scopes: ['query:read', 'admin'] },
  alphaQuery: { slug: 'alpha', scopes: ['query:read'] },
  alphaIngest: { slug: 'alpha', scopes: ['ingest:write'] },
  alphaIntegrations: { slug: 'alpha', scopes: ['integrations:write'] },
  alphaAllButAdmin: { slug: 'alpha', scopes: ['ingest:write', 'query:read', 'integrations:write'] },
  betaAdmin: { slug: 'beta', scopes: ['admin'] },
} as const;
type Credential = 'admin' | keyof typeof credentialScopes;

interface Target {
  url: string;
  body?: unknown;
}

interface MatrixRow {
  endpoint: string;
  /** Builds a fresh, real target each time, so a refusal is about the credential, never a missing resource. */
  target: (server: TestServer, run: number) => Promise<Target>;
  statuses: Record<Credential, number>;
}

// The admin token everywhere; keys and audit also an admin-scoped key (spec, Endpoints and Authentication).
const adminTokenOnly = { alphaAdmin: 403, alphaAdminAndRead: 403, alphaQuery: 403, alphaIngest: 403, alphaIntegrations: 403, alphaAllButAdmin: 403 };
const notAdminScoped = { alphaQuery: 403, alphaIngest: 403, alphaIntegrations: 403, alphaAllButAdmin: 403 };

const matrix: MatrixRow[] = [
  { endpoint: 'GET /workspaces', target: async () => ({ url: '/workspaces' }), statuses: { admin: 200, ...adminTokenOnly, betaAdmin: 403 } },
  {
    endpoint: 'POST /workspaces',
    target: async (_server, run) => ({ url: '/workspaces', body: { name: 'New', slug: `new-${run}` } }),
    statuses: { admin: 201, ...adminTokenOnly, betaAdmin: 403 },
  },
  { endpoint: 'GET /workspaces/:slug', target: async () => ({ url: '/workspaces/alpha' }), statuses: { admin: 200, ...adminTokenOnly, betaAdmin: 404 } },
  {
    endpoint: 'PATCH /workspaces/:slug',
    target: async () => ({ url: '/workspaces/alpha', body: { name: 'Workspace alpha' } }),
    statuses: { admin: 200, ...adminTokenOnly, betaAdmin: 404 },
  },
  { endpoint: 'GET /workspaces/:slug/sites', target: async () => ({ url: '/workspaces/alpha/sites' }), statuses: { admin: 200, ...adminTokenOnly, betaAdmin: 404 } },
  {
    endpoint: 'POST /workspaces/:slug/sites',
    target: async (_server, run) => ({ url: '/workspaces/alpha/sites', body: { id: `site-${run}`, name: 'New' } }),
    statuses: { admin: 201, ...adminTokenOnly, betaAdmin: 404 },
  },
  {
    endpoint: 'DELETE /workspaces/:slug/sites/:id',
    target: async (server, run) => {
      const created = await server.request('POST', '/workspaces/alpha/sites', { body: { id: `doomed-${run}`, name: 'Doomed' } });
      expect(created.status).toBe(201);
      return { url: `/workspaces/alpha/sites/doomed-${run}` };
    },
    statuses: { admin: 204, ...adminTokenOnly, betaAdmin: 404 },
  },
  {
    endpoint: 'GET /workspaces/:slug/keys',
    target: async () => ({ url: '/workspaces/alpha/keys' }),
    statuses: { admin: 200, ...notAdminScoped, alphaAdmin: 200, alphaAdminAndRead: 200, betaAdmin: 404 },
  },
  {
    endpoint: 'POST /workspaces/:slug/keys',
    target: async () => ({ url: '/workspaces/alpha/keys', body: { label: 'New', scopes: ['query:read'] } }),
    statuses: { admin: 201, ...notAdminScoped, alphaAdmin: 201, alphaAdminAndRead: 201, betaAdmin: 404 },
  },
  {
    endpoint: 'DELETE /workspaces/:slug/keys/:keyId',
    target: async (server) => ({ url: `/workspaces/alpha/keys/${(await createKey(server, 'alpha', ['query:read'], 'doomed')).id}` }),
    statuses: { admin: 200, ...notAdminScoped, alphaAdmin: 200, alphaAdminAndRead: 200, betaAdmin: 404 },
  },
  {
    endpoint: 'GET /workspaces/:slug/audit',
    target: async () => ({ url: '/workspaces/alpha/audit' }),
    statuses: { admin: 200, ...notAdminScoped, alphaAdmin: 200, alphaAdminAndRead: 200, betaAdmin: 404 },
  },
];

const method = (row: MatrixRow) => row.endpoint.split(' ')[0]!;
const cases = matrix.flatMap((row) => (Object.entries(row.statuses) as [Credential, number][]).map(([credential, status]) => ({ name: `${row.endpoint} as ${credential} → ${status}`, row, credential, status })));

describe.each(prefixes)('scopes under "%s"', (prefix) => {
  let server: TestServer;
  const tokens: Partial<Record<Credential, string>> = { admin: testAdminToken };
  let run = 0;

  beforeAll(async () => {
    server = await startTestServer({ clock: manualClock('2026-08-01T00:00:00.000Z') });
    await seedWorkspace(server, 'alpha', { sites: ['alpha-site'] });
    await seedWorkspace(server, 'beta', { sites: ['beta-site'] });
    for (const [name, { slug, scopes }] of Object.entries(credentialScopes)) tokens[name as Credential] = (await createKey(server, slug, [...scopes], name)).plaintext;
  });
  afterAll(() => server.close());

  it('every statuses row names every credential', () => {
    for (const row of matrix) expect(Object.keys(row.statuses).sort()).toEqual(['admin', ...Object.keys(credentialScopes)].sort());
  });

  it.each(cases)('$name', async ({ row, credential, status }) => {
    run += 1;
    const target = await row.target(server, run);
    const before = await settledTableCounts(server);
    const response = await server.request(method(row), prefix + target.url, { token: tokens[credential]!, body: target.body });
    expect(response.status, response.text).toBe(status);
    if (status >= 400) {
      expectFlatError(response, status, status === 403 ? 'forbidden_scope' : 'not_found');
      expect(await settledTableCounts(server)).toEqual(before);
    } else if (method(row) !== 'GET') {
      // A permitted mutation writes its audit row, whoever made it.
      expect((await settledTableCounts(server)).audit_log).toBe(before.audit_log! + 1);
    }
  });

  it("the scoped keys still work afterwards: refusals did not revoke or alter them", async () => {
    const keys = await server.request('GET', `${prefix}/workspaces/alpha/keys?limit=1000`);
    const byLabel = new Map((keys.body.keys as { label: string; scopes: string[]; revoked_at: string | null }[]).map((key) => [key.label, key]));
    for (const [name, { slug, scopes }] of Object.entries(credentialScopes)) {
      if (slug !== 'alpha') continue;
      expect(byLabel.get(name)).toMatchObject({ scopes: [...scopes], revoked_at: null });
    }
  });
});
