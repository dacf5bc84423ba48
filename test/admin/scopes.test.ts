// Which credential may call which administration endpoint: the admin token everywhere; an admin-scoped key of the
// workspace on keys and audit only; other scopes of the workspace get 403 forbidden_scope; keys of another
// workspace get 404. Refusals write nothing. Users signed in with a session (docs/people.md) stand beside the keys:
// an owner passes what the admin token passes inside its workspace, an admin what an admin key passes, analysts and
// viewers nothing here; a user of another workspace gets the 404 a foreign key gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, settledTableCounts, testAdminToken, type TestServer } from '../_setup.ts';
import { createKey, expectFlatError, manualClock, prefixes } from './_helpers.ts';
import type { AppContext } from '../../src/context.ts';
import { login, makeUser } from '../users/_users.ts';

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
/** Users signed in through POST /v1/auth/login, each with one role in one workspace. */
const userRoles = {
  alphaOwnerUser: { slug: 'alpha', role: 'owner' },
  alphaAdminUser: { slug: 'alpha', role: 'admin' },
  alphaAnalystUser: { slug: 'alpha', role: 'analyst' },
  alphaViewerUser: { slug: 'alpha', role: 'viewer' },
  betaOwnerUser: { slug: 'beta', role: 'owner' },
} as const;
type Credential = 'admin' | keyof typeof credentialScopes | keyof typeof userRoles;

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
/** The operator's own endpoints: no workspace role reaches them. */
const noUser = { alphaOwnerUser: 403, alphaAdminUser: 403, alphaAnalystUser: 403, alphaViewerUser: 403, betaOwnerUser: 403 };
/** The admin token's routes inside alpha: its owner passes (`status`), other roles 403, beta's owner 404. */
const ownerOnly = (status: number) => ({ alphaOwnerUser: status, alphaAdminUser: 403, alphaAnalystUser: 403, alphaViewerUser: 403, betaOwnerUser: 404 });
/** The admin scope inside alpha: owner and admin pass (`status`), analyst and viewer 403, beta's owner 404. */
const adminRoles = (status: number) => ({ alphaOwnerUser: status, alphaAdminUser: status, alphaAnalystUser: 403, alphaViewerUser: 403, betaOwnerUser: 404 });

const matrix: MatrixRow[] = [
  { endpoint: 'GET /workspaces', target: async () => ({ url: '/workspaces' }), statuses: { admin: 200, ...adminTokenOnly, betaAdmin: 403, ...noUser } },
  {
    endpoint: 'POST /workspaces',
    target: async (_server, run) => ({ url: '/workspaces', body: { name: 'New', slug: `new-${run}` } }),
    statuses: { admin: 201, ...adminTokenOnly, betaAdmin: 403, ...noUser },
  },
  { endpoint: 'GET /workspaces/:slug', target: async () => ({ url: '/workspaces/alpha' }), statuses: { admin: 200, ...adminTokenOnly, betaAdmin: 404, ...ownerOnly(200) } },
  {
    endpoint: 'PATCH /workspaces/:slug',
    target: async () => ({ url: '/workspaces/alpha', body: { name: 'Workspace alpha' } }),
    statuses: { admin: 200, ...adminTokenOnly, betaAdmin: 404, ...ownerOnly(200) },
  },
  { endpoint: 'GET /workspaces/:slug/sites', target: async () => ({ url: '/workspaces/alpha/sites' }), statuses: { admin: 200, ...adminTokenOnly, betaAdmin: 404, ...ownerOnly(200) } },
  {
    endpoint: 'POST /workspaces/:slug/sites',
    target: async (_server, run) => ({ url: '/workspaces/alpha/sites', body: { id: `site-${run}`, name: 'New' } }),
    statuses: { admin: 201, ...adminTokenOnly, betaAdmin: 404, ...ownerOnly(201) },
  },
  {
    endpoint: 'DELETE /workspaces/:slug/sites/:id',
    target: async (server, run) => {
      const created = await server.request('POST', '/workspaces/alpha/sites', { body: { id: `doomed-${run}`, name: 'Doomed' } });
      expect(created.status).toBe(201);
      return { url: `/workspaces/alpha/sites/doomed-${run}` };
    },
    statuses: { admin: 204, ...adminTokenOnly, betaAdmin: 404, ...ownerOnly(204) },
  },
  {
    endpoint: 'GET /workspaces/:slug/keys',
    target: async () => ({ url: '/workspaces/alpha/keys' }),
    statuses: { admin: 200, ...notAdminScoped, alphaAdmin: 200, alphaAdminAndRead: 200, betaAdmin: 404, ...adminRoles(200) },
  },
  {
    endpoint: 'POST /workspaces/:slug/keys',
    target: async () => ({ url: '/workspaces/alpha/keys', body: { label: 'New', scopes: ['query:read'] } }),
    statuses: { admin: 201, ...notAdminScoped, alphaAdmin: 201, alphaAdminAndRead: 201, betaAdmin: 404, ...adminRoles(201) },
  },
  {
    endpoint: 'DELETE /workspaces/:slug/keys/:keyId',
    target: async (server) => ({ url: `/workspaces/alpha/keys/${(await createKey(server, 'alpha', ['query:read'], 'doomed')).id}` }),
    statuses: { admin: 200, ...notAdminScoped, alphaAdmin: 200, alphaAdminAndRead: 200, betaAdmin: 404, ...adminRoles(200) },
  },
  {
    endpoint: 'GET /workspaces/:slug/audit',
    target: async () => ({ url: '/workspaces/alpha/audit' }),
    statuses: { admin: 200, ...notAdminScoped, alphaAdmin: 200, alphaAdminAndRead: 200, betaAdmin: 404, ...adminRoles(200) },
  },
];

const method = (row: MatrixRow) => row.endpoint.split(' ')[0]!;
const cases = matrix.flatMap((row) => (Object.entries(row.statuses) as [Credential, number][]).map(([credential, status]) => ({ name: `${row.endpoint} as ${credential} → ${status}`, row, credential, status })));

describe.each(prefixes)('scopes under "%s"', (prefix) => {
  let server: TestServer;
  const tokens: Partial<Record<Credential, string>> = { admin: testAdminToken };
  const sessions: Partial<Record<Credential, Record<string, string>>> = {};
  let context: AppContext;
  let run = 0;

  beforeAll(async () => {
    server = await startTestServer({
      clock: manualClock('2026-08-01T00:00:00.000Z'),
      extend: (_app, appContext) => {
        context = appContext;
      },
    });
    await seedWorkspace(server, 'alpha', { sites: ['alpha-site'] });
    await seedWorkspace(server, 'beta', { sites: ['beta-site'] });
    for (const [name, { slug, scopes }] of Object.entries(credentialScopes)) tokens[name as Credential] = (await createKey(server, slug, [...scopes], name)).plaintext;
    for (const [name, { slug, role }] of Object.entries(userRoles)) {
      await makeUser(context, `${name}@example.com`, { memberships: [[slug, role]] });
      sessions[name as Credential] = (await login(server, { email: `${name}@example.com`, password: 'correct horse battery staple' })).as().headers;
    }
  });
  afterAll(() => server.close());

  it('every statuses row names every credential', () => {
    for (const row of matrix) expect(Object.keys(row.statuses).sort()).toEqual(['admin', ...Object.keys(credentialScopes), ...Object.keys(userRoles)].sort());
  });

  it.each(cases)('$name', async ({ row, credential, status }) => {
    run += 1;
    const target = await row.target(server, run);
    const before = await settledTableCounts(server);
    const credentialOptions = sessions[credential] ? { token: null, headers: sessions[credential] } : { token: tokens[credential]! };
    const response = await server.request(method(row), prefix + target.url, { ...credentialOptions, body: target.body });
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
