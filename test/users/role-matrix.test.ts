// Every route of the router × every role (owner, admin, analyst, viewer) × own and foreign workspace, through the
// one access resolver (CONTRACT 9, docs/people.md "Roles"). The list of routes is the router's own
// (registeredRoutesOf, the source of the OpenAPI document): a route added without a line here fails the first test.
// Own workspace: a role at or above the route's least role gets past access (any answer but 401/403: the empty
// body or the made-up id then answers 400 or 404), a lower one 403 forbidden_scope. Foreign workspace: 404
// not_found for every role, exactly as for a missing one. Nothing here needs a real resource: access is decided
// before the body is read or the resource looked up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/access/caller.ts';
import type { AppContext } from '../../src/context.ts';
import { registeredRoutesOf } from '../../src/http/routes.ts';
import { createKey, manualClock } from '../admin/_helpers.ts';
import type { TestServer } from '../_setup.ts';
import { goodPassword, login, makeUser, startPeopleServer } from './_users.ts';

type Access =
  /** A workspace or site route: the least role that may call it. */
  | { least: Role }
  /** The operator's own endpoints (no workspace): 403 for every role; platform operators pass. */
  | { operator: true }
  /** Machines only (a bearer of the right scope): a person's session is no credential there, 401 whatever the role. */
  | { machinesOnly: string }
  /** Not about a workspace: public, the caller's own account, or a credential of its own. */
  | { outside: string };

const dashboards = { least: 'viewer' } as const;
const reads = { least: 'analyst' } as const;
const adminScope = { least: 'admin' } as const;
const ownerRole = { least: 'owner' } as const;

/** CONTRACT 9 per route. Keys are `METHOD path` exactly as the router registers them. */
const expected: Record<string, Access> = {
  'GET /version': { outside: 'public' },
  'GET /healthz': { outside: 'public' },
  'OPTIONS /events': { outside: 'CORS preflight of ingest' },
  'GET /workspaces': { operator: true },
  'POST /workspaces': { operator: true },
  'GET /workspaces/:slug': ownerRole,
  'PATCH /workspaces/:slug': ownerRole,
  'GET /workspaces/:slug/sites': ownerRole,
  'POST /workspaces/:slug/sites': ownerRole,
  'GET /workspaces/:slug/sites/:id': ownerRole,
  'PATCH /workspaces/:slug/sites/:id': ownerRole,
  'DELETE /workspaces/:slug/sites/:id': ownerRole,
  'GET /workspaces/:slug/keys': adminScope,
  'POST /workspaces/:slug/keys': adminScope,
  'DELETE /workspaces/:slug/keys/:keyId': adminScope,
  'GET /workspaces/:slug/audit': adminScope,
  'POST /events': { machinesOnly: 'ingest (a site id or an ingest:write key)' },
  'POST /s2s/events': { machinesOnly: 'server-to-server ingest (an ingest:write key)' },
  'GET /sites/:siteId/dlq': adminScope,
  'POST /sites/:siteId/dlq/:eventId/replay': adminScope,
  'POST /sites/:siteId/gdpr/export': adminScope,
  'POST /sites/:siteId/gdpr/delete': adminScope,
  'GET /metrics': { operator: true },
  // The specification's own reports (aggregates by day, by name, visits): dashboards as the v2 reports are.
  'GET /sites/:siteId/pageviews': dashboards,
  'GET /sites/:siteId/events': dashboards,
  'GET /sites/:siteId/sessions': dashboards,
  'GET /sites/:siteId/reports/summary-v2': dashboards,
  'GET /sites/:siteId/reports/dashboard-v2': dashboards,
  'GET /sites/:siteId/reports/goals-v2': dashboards,
  'GET /sites/:siteId/reports/realtime-v2': dashboards,
  'GET /sites/:siteId/share-info': { outside: 'a share link\'s token is the credential' },
  'GET /sites/:siteId/reports/journeys-v2': dashboards,
  'GET /sites/:siteId/reports/page-flow-v2': dashboards,
  'GET /sites/:siteId/reports/retention-v2': dashboards,
  // Goals, segments and annotations: a viewer reads them; an analyst and above define them (CONTRACT 9 and 10).
  'GET /sites/:siteId/goals': dashboards,
  'POST /sites/:siteId/goals': reads,
  'PATCH /sites/:siteId/goals/:id': reads,
  'DELETE /sites/:siteId/goals/:id': reads,
  'GET /sites/:siteId/segments': dashboards,
  'POST /sites/:siteId/segments': reads,
  'PATCH /sites/:siteId/segments/:id': reads,
  'DELETE /sites/:siteId/segments/:id': reads,
  // A member's own e-mail reports (CONTRACT 13): every role; alerts: owners and admins.
  'GET /sites/:siteId/email-reports': dashboards,
  'POST /sites/:siteId/email-reports': dashboards,
  'PATCH /sites/:siteId/email-reports/:id': dashboards,
  'DELETE /sites/:siteId/email-reports/:id': dashboards,
  'POST /sites/:siteId/email-reports/:id/test': dashboards,
  'GET /email-reports/unsubscribe': { outside: 'a signed unsubscribe token is the credential' },
  'POST /email-reports/unsubscribe': { outside: 'a signed unsubscribe token is the credential' },
  'GET /sites/:siteId/alerts': adminScope,
  'POST /sites/:siteId/alerts': adminScope,
  'PATCH /sites/:siteId/alerts/:id': adminScope,
  'DELETE /sites/:siteId/alerts/:id': adminScope,
  'GET /alerts/unsubscribe': { outside: 'a signed unsubscribe token is the credential' },
  'POST /alerts/unsubscribe': { outside: 'a signed unsubscribe token is the credential' },
  // Imports and exports (CONTRACT 11): admin.
  'POST /sites/:siteId/imports': adminScope,
  'GET /sites/:siteId/imports': adminScope,
  'GET /sites/:siteId/imports/:importId': adminScope,
  'DELETE /sites/:siteId/imports/:importId': adminScope,
  'GET /sites/:siteId/export': adminScope,
  'GET /sites/:siteId/annotations': dashboards,
  'POST /sites/:siteId/annotations': reads,
  'PATCH /sites/:siteId/annotations/:id': reads,
  'DELETE /sites/:siteId/annotations/:id': reads,
  'GET /sites/:siteId/reports/pages-v2': dashboards,
  'GET /sites/:siteId/reports/sources-v2': dashboards,
  'GET /sites/:siteId/reports/campaigns-v2': dashboards,
  'GET /sites/:siteId/reports/breakdown-v2': dashboards,
  'GET /sites/:siteId/reports/props-v2': dashboards,
  'GET /sites/:siteId/events/list-v2': reads,
  'GET /sites/:siteId/events/overview-v2': reads,
  'GET /sites/:siteId/events/activity-v2': reads,
  'GET /sites/:siteId/events/stream-v2': reads,
  'GET /sites/:siteId/users/:userId/timeline': reads,
  'GET /workspaces/:slug/spend': reads,
  'POST /workspaces/:slug/spend': adminScope,
  'POST /workspaces/:slug/spend/csv': adminScope,
  'PATCH /workspaces/:slug/spend/:id': adminScope,
  'DELETE /workspaces/:slug/spend': adminScope,
  'POST /webhooks/:adapter/:siteId': { outside: 'inbound webhooks, verified by their signature' },
  'GET /v2/sites/:siteId/consent-banner/config': reads,
  'PUT /v2/sites/:siteId/consent-banner/config': adminScope,
  'POST /sites/:siteId/sourcemaps': { machinesOnly: 'a CI upload (an ingest:write key)' },
  'GET /sdk.js': { outside: 'public' },
  'POST /workspaces/:slug/integrations/bridge/actions': { machinesOnly: 'automation platforms (an integrations:write key)' },
  'GET /workspaces/:slug/integrations/endpoints': adminScope,
  'POST /workspaces/:slug/integrations/endpoints': adminScope,
  'GET /workspaces/:slug/integrations/endpoints/:id': adminScope,
  'PATCH /workspaces/:slug/integrations/endpoints/:id': adminScope,
  'DELETE /workspaces/:slug/integrations/endpoints/:id': adminScope,
  'GET /workspaces/:slug/integrations/endpoints/:id/deliveries': adminScope,
  'POST /workspaces/:slug/integrations/endpoints/:id/test': adminScope,
  'POST /workspaces/:slug/analysis/funnels-v2': reads,
  'POST /workspaces/:slug/analysis/funnels-v2/correlation': reads,
  'POST /workspaces/:slug/analysis/funnels-v2/explanation': reads,
  'GET /workspaces/:slug/attribution/results': reads,
  'GET /workspaces/:slug/roi': reads,
  'GET /workspaces/:slug/roi/compare': reads,
  'POST /ui/session': { outside: 'the UI\'s token sign-in (the admin token or a key)' },
  'GET /ui/session': { outside: 'the UI\'s token session' },
  'DELETE /ui/session': { outside: 'the UI\'s token session' },
  'POST /sites/:siteId/share-links': { least: 'analyst' },
  'GET /sites/:siteId/share-links': { least: 'analyst' },
  'DELETE /sites/:siteId/share-links/:linkId': { least: 'analyst' },
  'POST /auth/login': { outside: 'sign-in' },
  'POST /auth/logout': { outside: 'sign-out' },
  'GET /me': { outside: 'one\'s own account' },
  'PATCH /me': { outside: 'one\'s own account' },
  'GET /me/sessions': { outside: 'one\'s own account' },
  'DELETE /me/sessions/:id': { outside: 'one\'s own account' },
  'POST /me/totp': { outside: 'one\'s own account' },
  'POST /me/totp/confirm': { outside: 'one\'s own account' },
  'DELETE /me/totp': { outside: 'one\'s own account' },
  'GET /workspaces/:slug/members': adminScope,
  'POST /workspaces/:slug/members': ownerRole,
  'PATCH /workspaces/:slug/members/:userId': ownerRole,
  'DELETE /workspaces/:slug/members/:userId': ownerRole,
  'POST /workspaces/:slug/invitations': adminScope,
  'GET /workspaces/:slug/invitations': adminScope,
  'DELETE /workspaces/:slug/invitations/:id': adminScope,
  'POST /invitations/accept': { outside: 'the invitation\'s token is the credential' },
  'POST /auth/set-password': { outside: 'the set-password link\'s token is the credential' },
  'GET /auth/options': { outside: 'public' },
  'GET /auth/oidc/start': { outside: 'single sign-on' },
  'GET /auth/oidc/callback': { outside: 'single sign-on' },
  'GET /schemas': { outside: 'public' },
  'GET /openapi.json': { outside: 'public' },
};

const rank: Record<Role, number> = { viewer: 0, analyst: 1, admin: 2, owner: 3 };
const roles: Role[] = ['owner', 'admin', 'analyst', 'viewer'];
const where = { own: { slug: 'alpha', site: 'alpha-site' }, foreign: { slug: 'beta', site: 'beta-site' } } as const;

/** The route's path with the workspace and site of `side`, and a made-up id for anything else (never a real one). */
function pathOf(path: string, side: keyof typeof where): string {
  return `/v1${path}`
    .replace(':slug', where[side].slug)
    .replace(':siteId', where[side].site)
    .replace(/:([A-Za-z]+)/g, (_match, name: string) => `no-such-${name.toLowerCase()}`);
}

const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

describe('role × route matrix', () => {
  let server: TestServer;
  let context: AppContext;
  const sessions: Partial<Record<Role, Record<string, string>>> = {};

  beforeAll(async () => {
    ({ server, context } = await startPeopleServer(manualClock('2026-03-01T12:00:00.000Z')));
    for (const role of roles) {
      await makeUser(context, `${role}@example.com`, { memberships: [['alpha', role]] });
      sessions[role] = (await login(server, { email: `${role}@example.com`, password: goodPassword })).as().headers;
    }
  });
  afterAll(() => server.close());

  it('has an expectation for every route of the router, and none for a route that does not exist', () => {
    const registered = registeredRoutesOf(server.app.h3).map(routeKey);
    expect(registered.filter((key) => !(key in expected)), 'routes without a line in the matrix').toEqual([]);
    expect(Object.keys(expected).filter((key) => !registered.includes(key)), 'lines for routes that do not exist').toEqual([]);
  });

  const cases = Object.entries(expected).flatMap(([key, access]) =>
    'outside' in access ? [] : roles.flatMap((role) => (['own', 'foreign'] as const).map((side) => ({ key, access, role, side }))),
  );

  it.each(cases)('$key as $role of the $side workspace', async ({ key, access, role, side }) => {
    const route = registeredRoutesOf(server.app.h3).find((candidate) => routeKey(candidate) === key)!;
    const url = pathOf(route.path, side);
    const headers = sessions[role]!;
    const hasBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
    let status: number;
    let code: string | undefined;
    if (route.produces === 'text/event-stream') {
      // A stream that opens never ends: its status is all the matrix needs.
      const controller = new AbortController();
      const response = await fetch(`${server.url}${url}`, { headers, signal: controller.signal });
      status = response.status;
      code = status >= 400 ? ((await response.json()) as { error: { code: string } }).error.code : undefined;
      controller.abort();
    } else {
      const response = await server.request(route.method, url, { token: null, headers, ...(hasBody ? { body: {} } : {}) });
      status = response.status;
      code = typeof response.body?.error === 'string' ? response.body.error : response.body?.error?.code;
    }
    if ('operator' in access) {
      expect([status, code]).toEqual([403, 'forbidden_scope']);
    } else if ('machinesOnly' in access) {
      expect(status).toBe(401);
    } else if ('least' in access && side === 'foreign') {
      expect([status, code]).toEqual([404, 'not_found']);
    } else if ('least' in access && rank[role] >= rank[access.least]) {
      expect(status, `${code}`).not.toBe(401);
      expect(status, `${code}`).not.toBe(403);
    } else {
      expect([status, code]).toEqual([403, 'forbidden_scope']);
    }
  });
});

describe('an analyst\'s own share links', () => {
  let server: TestServer;
  let context: AppContext;
  beforeAll(async () => {
    ({ server, context } = await startPeopleServer(manualClock('2026-03-01T12:00:00.000Z')));
  });
  afterAll(() => server.close());

  it('makes links, lists and revokes its own only; the admin scope manages all; a query:read key still gets 403', async () => {
    for (const [email, role] of [['ana@example.com', 'analyst'], ['abe@example.com', 'analyst'], ['adm@example.com', 'admin']] as const) {
      await makeUser(context, email, { memberships: [['alpha', role]] });
    }
    const ana = await login(server, { email: 'ana@example.com', password: goodPassword });
    const abe = await login(server, { email: 'abe@example.com', password: goodPassword });
    const adm = await login(server, { email: 'adm@example.com', password: goodPassword });
    const create = async (who: typeof ana, label: string) => {
      const response = await server.request('POST', '/v1/sites/alpha-site/share-links', { ...who.as(), body: { label } });
      expect(response.status).toBe(201);
      return response.body.id as string;
    };
    const anasLink = await create(ana, 'Ana\'s');
    const abesLink = await create(abe, 'Abe\'s');
    const adminsLink = await create(adm, 'Admin\'s');
    const labels = async (who: typeof ana) => ((await server.request('GET', '/v1/sites/alpha-site/share-links', who.as())).body.share_links as { label: string }[]).map((link) => link.label).sort();
    expect(await labels(ana)).toEqual(['Ana\'s']);
    expect(await labels(abe)).toEqual(['Abe\'s']);
    expect(await labels(adm)).toEqual(['Abe\'s', 'Admin\'s', 'Ana\'s']);
    // Another's link is the 404 of a missing one, for an analyst; the admin scope revokes any.
    expect((await server.request('DELETE', `/v1/sites/alpha-site/share-links/${abesLink}`, ana.as())).status).toBe(404);
    expect((await server.request('DELETE', `/v1/sites/alpha-site/share-links/${adminsLink}`, ana.as())).status).toBe(404);
    expect((await server.request('DELETE', `/v1/sites/alpha-site/share-links/${anasLink}`, ana.as())).status).toBe(200);
    expect((await server.request('DELETE', `/v1/sites/alpha-site/share-links/${abesLink}`, adm.as())).status).toBe(200);
    // Keys keep the specification's rule: the admin scope.
    const key = await createKey(server, 'alpha', ['query:read']);
    const byKey = await server.request('GET', '/v1/sites/alpha-site/share-links', { token: key.plaintext });
    expect(byKey.status).toBe(403);
  });
});
