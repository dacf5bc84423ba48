// GET /v1/sites/:siteId/reports/props-v2 and breakdown-v2 over real HTTP: exact counts, the order of rows, every
// limit at its edge (type, property, limit, the value's length), access (a foreign site is the missing one's 404),
// and the answers match the published schemas (the checked client).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { googlebot, iphone, send, wireEvent } from '../events/_helpers.ts';

const clock = manualClock('2026-03-20T12:00:00.000Z');
const range = 'from=2026-03-10&to=2026-03-12';
let server: TestServer;
let otherKey: string;

beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'acme', { sites: ['shop', 'blog'] });
  otherKey = (await seedWorkspace(server, 'other', { sites: ['elsewhere'], scopes: ['query:read'] })).key!;
  const at = (day: number) => `2026-03-${day}T12:00:00.000Z`;
  await send(server, 'shop', [
    wireEvent('shop', { ts: at(10), type: 'signup', anon_id: 'a', props: { plan: 'pro' } }),
    wireEvent('shop', { ts: at(10), type: 'signup', anon_id: 'a', props: { plan: 'pro' } }),
    wireEvent('shop', { ts: at(11), type: 'signup', anon_id: 'b', props: { plan: 'pro', seats: 3 } }),
    wireEvent('shop', { ts: at(11), type: 'signup', anon_id: 'c', props: { plan: 'free', seats: 3 }, context: { user_agent: iphone } }),
    wireEvent('shop', { ts: at(12), type: 'signup', anon_id: 'd', props: { plan: true } }),
    wireEvent('shop', { ts: at(12), type: 'signup', anon_id: 'e', props: { plan: { tier: 2 } } }),
    wireEvent('shop', { ts: at(12), type: 'signup', anon_id: 'f', props: { other: 'x' } }),
    wireEvent('shop', { ts: at(12), type: 'signup', anon_id: 'g' }),
    wireEvent('shop', { ts: at(12), type: 'signup', anon_id: 'h', props: { plan: '=cmd()' } }),
    // Not counted: another type, outside the range, a bot, internal traffic.
    wireEvent('shop', { ts: at(11), type: 'purchase', anon_id: 'a', props: { plan: 'pro' } }),
    wireEvent('shop', { ts: '2026-03-13T00:00:00.000Z', type: 'signup', anon_id: 'a', props: { plan: 'pro' } }),
    wireEvent('shop', { ts: at(11), type: 'signup', anon_id: 'bot', props: { plan: 'pro' }, context: { user_agent: googlebot } }),
    wireEvent('shop', { ts: at(11), type: 'signup', anon_id: 'i', props: { plan: 'pro' }, internal: true }),
    // The value-length edge: 500 characters kept whole, 501 cut to 500 (and grouped with the first).
    wireEvent('shop', { ts: at(10), type: 'long', anon_id: 'a', props: { note: 'n'.repeat(500) } }),
    wireEvent('shop', { ts: at(10), type: 'long', anon_id: 'b', props: { note: `${'n'.repeat(500)}X` } }),
    wireEvent('shop', { ts: at(10), type: 'long', anon_id: 'c', props: { note: 'm'.repeat(499) } }),
  ]);
  await send(server, 'blog', [wireEvent('blog', { ts: at(10), type: 'signup', anon_id: 'a', props: { plan: 'pro' } })]);
});
afterAll(() => server.close());

const props = (site: string, query: string, token?: string) => server.request('GET', `/v1/sites/${site}/reports/props-v2?${range}&${query}`, token ? { token } : {});

describe('props-v2', () => {
  it('counts events and distinct visitors per value, most events first, then value', async () => {
    const response = await props('shop', 'type=signup&property=plan');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      type: 'signup',
      property: 'plan',
      rows: [
        { value: 'pro', events: 3, visitors: 2 },
        { value: '=cmd()', events: 1, visitors: 1 },
        { value: 'free', events: 1, visitors: 1 },
        { value: 'true', events: 1, visitors: 1 },
        { value: '{"tier":2}', events: 1, visitors: 1 },
      ],
    });
    expect(response.body.meta).toMatchObject({ computed_from: 'event_log', truncated: false, limit: 10, range: { from: '2026-03-10', to: '2026-03-12' } });
    expect((await props('shop', 'type=signup&property=seats')).body.data.rows).toEqual([{ value: '3', events: 2, visitors: 2 }]);
    expect((await props('shop', 'type=signup&property=missing')).body.data.rows).toEqual([]);
  });

  it('applies internal, filters and scope=all-sites (one visitor across sites)', async () => {
    expect((await props('shop', 'type=signup&property=plan&internal=include')).body.data.rows[0]).toEqual({ value: 'pro', events: 4, visitors: 3 });
    expect((await props('shop', 'type=signup&property=plan&device=mobile')).body.data.rows).toEqual([{ value: 'free', events: 1, visitors: 1 }]);
    expect((await props('shop', 'type=signup&property=plan&scope=all-sites')).body.data.rows[0]).toEqual({ value: 'pro', events: 4, visitors: 2 });
  });

  it('cuts values at 500 characters: 500 kept whole, 501 grouped with it', async () => {
    const rows = (await props('shop', 'type=long&property=note')).body.data.rows;
    expect(rows).toEqual([
      { value: 'n'.repeat(500), events: 2, visitors: 2 },
      { value: 'm'.repeat(499), events: 1, visitors: 1 },
    ]);
  });

  it('limits rows: limit=1 shows the first and says more exist; 200 is accepted, 0 and 201 refused', async () => {
    const one = await props('shop', 'type=signup&property=plan&limit=1');
    expect(one.body.data.rows).toEqual([{ value: 'pro', events: 3, visitors: 2 }]);
    expect(one.body.meta).toMatchObject({ truncated: true, limit: 1 });
    expect((await props('shop', 'type=signup&property=plan&limit=5')).body.meta.truncated).toBe(false);
    expect((await props('shop', 'type=signup&property=plan&limit=4')).body.meta.truncated).toBe(true);
    expect((await props('shop', 'type=signup&property=plan&limit=200')).status).toBe(200);
    for (const limit of ['0', '201']) {
      const refused = await props('shop', `type=signup&property=plan&limit=${limit}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_param', details: [{ path: '/limit' }] });
    }
  });

  it('requires type and property of 1-200 characters', async () => {
    expect((await props('shop', `type=${'t'.repeat(200)}&property=${'p'.repeat(200)}`)).status).toBe(200);
    for (const [query, path] of [
      [`type=${'t'.repeat(201)}&property=plan`, '/type'],
      [`type=signup&property=${'p'.repeat(201)}`, '/property'],
      ['property=plan', '/type'],
      ['type=signup', '/property'],
      ['type=&property=plan', '/type'],
    ] as const) {
      const refused = await props('shop', query);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_param', details: [{ path }] });
    }
  });

  it('answers a foreign site exactly as a missing one, and refuses the common parameters as every report does', async () => {
    const foreign = await props('shop', 'type=signup&property=plan', otherKey);
    const missing = await props('nowhere', 'type=signup&property=plan', otherKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect((await props('elsewhere', 'type=signup&property=plan', otherKey)).status).toBe(200);
    expect((await server.request('GET', '/v1/sites/shop/reports/props-v2?type=signup&property=plan')).body.error.code).toBe('invalid_date_param');
    expect((await server.request('GET', '/sites/shop/reports/props-v2?from=2026-03-10&to=2026-03-12&type=signup&property=plan', { unroutable: true })).status).toBe(404);
  });
});

describe('breakdown-v2', () => {
  it('ranks the values of one visit dimension by visits, and refuses an unknown or missing dimension', async () => {
    await server.projected();
    const devices = await server.request('GET', `/v1/sites/shop/reports/breakdown-v2?${range}&by=device`);
    expect(devices.status).toBe(200);
    expect(devices.body.data.rows.map((row: { value: string }) => row.value)).toEqual(['desktop', 'mobile']);
    expect(devices.body.data.rows[1]).toMatchObject({ value: 'mobile', visits: 1, visitors: 1 });
    for (const by of ['', 'path', 'source', 'constructor']) {
      const refused = await server.request('GET', `/v1/sites/shop/reports/breakdown-v2?${range}&by=${by}`);
      expect(refused.status, by).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_param', details: [{ path: '/by' }] });
    }
  });
});
