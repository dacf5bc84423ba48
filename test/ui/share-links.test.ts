// Share links over HTTP: the token is shown once and stored hashed; it reads its own site's V2 reports and nothing
// else — another site (of the same or another workspace) is the missing site's 404, scope=all-sites is 403, and
// every other route, mutations first, answers it as no credential (401). Revoked, it stops at once.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { send, wireEvent } from '../events/_helpers.ts';

const range = 'from=2026-03-10&to=2026-03-12';
const reports = ['summary-v2', 'pages-v2', 'sources-v2', 'campaigns-v2', 'breakdown-v2?by=country', 'props-v2?type=signup&property=plan'];
const withRange = (report: string) => `${report}${report.includes('?') ? '&' : '?'}${range}`;

let server: TestServer;
let readKey: string;
let otherAdminKey: string;

beforeAll(async () => {
  server = await startTestServer();
  readKey = (await seedWorkspace(server, 'acme', { sites: ['blog', 'shop'], scopes: ['query:read'] })).key!;
  otherAdminKey = (await seedWorkspace(server, 'other', { sites: ['elsewhere'], scopes: ['admin'] })).key!;
  await send(server, 'blog', [wireEvent('blog', { ts: '2026-03-11T12:00:00.000Z', type: 'signup', props: { plan: 'pro' } })]);
});
afterAll(() => server.close());

const share = (token: string) => ({ token: null, headers: { authorization: `Share ${token}` } });

async function createLink(site = 'blog', label = 'Public dashboard') {
  const created = await server.request('POST', `/v1/sites/${site}/share-links`, { body: { label } });
  expect(created.status, created.text).toBe(201);
  return created.body as { id: string; token: string; label: string };
}

describe('share links', () => {
  it('shows the token once and stores only its digest; lists without tokens; audits', async () => {
    const link = await createLink();
    expect(link.token).toMatch(/^shr_[A-Za-z0-9_-]{43}$/);
    const listed = await server.request('GET', '/v1/sites/blog/share-links');
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(link.token);
    expect(listed.body.share_links[0]).toMatchObject({ id: link.id, label: 'Public dashboard', revoked_at: null });
    expect(JSON.stringify(server.db.prepare('SELECT * FROM ui_share_links').all())).not.toContain(link.token.slice(4));
    const audit = await server.request('GET', '/workspaces/acme/audit');
    expect(audit.body.entries.map((entry: { action: string }) => entry.action)).toContain('share_link.create');
  });

  it('reads every V2 report of its own site', async () => {
    const link = await createLink();
    for (const report of reports) {
      const answer = await server.request('GET', `/v1/sites/blog/reports/${withRange(report)}`, share(link.token));
      expect(answer.status, `${report}: ${answer.text}`).toBe(200);
    }
    const summary = await server.request('GET', `/v1/sites/blog/reports/summary-v2?${range}`, share(link.token));
    expect(summary.body.data.events).toBe(1);
  });

  it('never reaches another site: the same 404 as a missing site, in the same workspace or another', async () => {
    const link = await createLink();
    const missing = await server.request('GET', `/v1/sites/nowhere/reports/summary-v2?${range}`, share(link.token));
    expect(missing.status).toBe(404);
    for (const site of ['shop', 'elsewhere']) {
      const answer = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?${range}`, share(link.token));
      expect(answer.status, site).toBe(404);
      expect(answer.body).toEqual(missing.body);
    }
    const allSites = await server.request('GET', `/v1/sites/blog/reports/summary-v2?${range}&scope=all-sites`, share(link.token));
    expect(allSites.status).toBe(403);
    expect(allSites.body.error.code).toBe('forbidden_scope');
  });

  it('is no credential anywhere else: every mutation and every other read answers 401', async () => {
    const link = await createLink();
    const attempts: [string, string, unknown?][] = [
      ['POST', '/v1/workspaces', { name: 'x', slug: 'x' }],
      ['GET', '/v1/workspaces'],
      ['POST', '/v1/workspaces/acme/sites', { id: 'new', name: 'New' }],
      ['DELETE', '/v1/workspaces/acme/sites/blog'],
      ['POST', '/v1/workspaces/acme/keys', { label: 'k', scopes: ['admin'] }],
      ['GET', '/v1/workspaces/acme/keys'],
      ['PATCH', '/v1/workspaces/acme', { name: 'Renamed' }],
      ['POST', '/v1/sites/blog/share-links', { label: 'another' }],
      ['GET', '/v1/sites/blog/share-links'],
      ['DELETE', `/v1/sites/blog/share-links/${link.id}`],
      ['POST', `/v1/sites/blog/dlq/${randomUUID()}/replay`],
      ['GET', '/v1/sites/blog/dlq'],
      ['POST', '/v1/workspaces/acme/spend', { day: '2026-03-10', source: 'google', amount: '1.00', currency: 'EUR' }],
      ['GET', `/v1/sites/blog/events/list-v2?${range}`],
      ['GET', `/v1/sites/blog/events/overview-v2?${range}`],
      ['GET', `/v1/sites/blog/pageviews?${range}`],
      ['GET', '/v1/sites/blog/users/someone/timeline'],
      ['POST', '/v1/s2s/events', [wireEvent('blog')]],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await server.request(method, path, { ...share(link.token), ...(body === undefined ? {} : { body }) });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(401);
    }
    const stream = await fetch(`${server.url}/v1/sites/blog/events/stream-v2`, { headers: { authorization: `Share ${link.token}` } });
    expect(stream.status).toBe(401);
    await stream.body?.cancel();
    expect((await server.request('GET', '/v1/workspaces/acme/sites')).body.sites).toHaveLength(2);
    expect((await server.request('GET', '/v1/sites/blog/share-links')).body.share_links.find((row: { id: string }) => row.id === link.id).revoked_at).toBeNull();
  });

  it('stops working the moment it is revoked; revoking twice or through another site is 404', async () => {
    const link = await createLink();
    expect((await server.request('GET', `/v1/sites/blog/reports/summary-v2?${range}`, share(link.token))).status).toBe(200);
    expect((await server.request('DELETE', `/v1/sites/shop/share-links/${link.id}`)).status).toBe(404);
    const revoked = await server.request('DELETE', `/v1/sites/blog/share-links/${link.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    expect((await server.request('GET', `/v1/sites/blog/reports/summary-v2?${range}`, share(link.token))).status).toBe(401);
    expect((await server.request('DELETE', `/v1/sites/blog/share-links/${link.id}`)).status).toBe(404);
  });

  it('needs the admin scope of the site\'s workspace to create, list or revoke', async () => {
    expect((await server.request('POST', '/v1/sites/blog/share-links', { token: readKey, body: { label: 'x' } })).status).toBe(403);
    expect((await server.request('POST', '/v1/sites/blog/share-links', { token: otherAdminKey, body: { label: 'x' } })).status).toBe(404);
    expect((await server.request('GET', '/v1/sites/blog/share-links', { token: otherAdminKey })).status).toBe(404);
    expect((await server.request('POST', '/v1/sites/blog/share-links', { body: { label: '' } })).status).toBe(400);
    expect((await server.request('POST', '/v1/sites/elsewhere/share-links', { token: otherAdminKey, body: { label: 'ok' } })).status).toBe(201);
  });

  it('goes away with its site: a site re-created under the same id does not inherit it', async () => {
    await seedWorkspace(server, 'temp', { sites: ['temp-site'] });
    const link = await createLink('temp-site');
    expect((await server.request('DELETE', '/v1/workspaces/temp/sites/temp-site')).status).toBe(204);
    expect((await server.request('POST', '/v1/workspaces/temp/sites', { body: { id: 'temp-site', name: 'Again' } })).status).toBe(201);
    expect((await server.request('GET', `/v1/sites/temp-site/reports/summary-v2?${range}`, share(link.token))).status).toBe(401);
    expect(server.db.prepare("SELECT count(*) AS n FROM ui_share_links WHERE site_id = 'temp-site'").get()).toEqual({ n: 0 });
  });

  it('a revoked or unknown token is a failed authentication: throttled per address like a wrong bearer', async () => {
    const throttled = await startTestServer({ env: { TRUST_PROXY: '1', AUTH_FAILURE_BURST: '2', AUTH_FAILURES_PER_MINUTE: '1' } });
    try {
      await seedWorkspace(throttled, 'acme', { sites: ['blog'] });
      const created = await throttled.request('POST', '/v1/sites/blog/share-links', { body: { label: 'soon revoked' } });
      const live = await throttled.request('POST', '/v1/sites/blog/share-links', { body: { label: 'live' } });
      expect((await throttled.request('DELETE', `/v1/sites/blog/share-links/${created.body.id}`)).status).toBe(200);
      const read = (token: string, address: string) =>
        throttled.request('GET', `/v1/sites/blog/reports/summary-v2?${range}`, { token: null, headers: { authorization: `Share ${token}`, 'x-forwarded-for': address } });
      expect((await read(created.body.token, '192.0.2.1')).status).toBe(401);
      expect((await read(`shr_${'B'.repeat(43)}`, '192.0.2.1')).status).toBe(401);
      const refused = await read(live.body.token, '192.0.2.1');
      expect([refused.status, refused.body.error.code, refused.headers.get('retry-after')]).toEqual([429, 'rate_limited', '60']);
      expect((await read(live.body.token, '192.0.2.2')).status).toBe(200);
      // A live link on another site is a 404, not a failed authentication: it is not counted.
      for (let attempt = 0; attempt < 3; attempt++) expect((await throttled.request('GET', `/v1/sites/elsewhere/reports/summary-v2?${range}`, { token: null, headers: { authorization: `Share ${live.body.token}`, 'x-forwarded-for': '192.0.2.3' } })).status).toBe(404);
      expect((await read(live.body.token, '192.0.2.3')).status).toBe(200);
    } finally {
      await throttled.close();
    }
  });
});
