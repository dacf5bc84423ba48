// Segments over HTTP (CONTRACT section 10): filters checked exactly as a report checks them, the site's limit, a
// personal segment invisible to everyone else (404), a site segment changed only by its owner or an admin, viewers
// reading only, and segment=<id> giving every V2 report the same answer as its filters sent by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../_setup.ts';
import { createKey, manualClock, padTo } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';
import { goodPassword, login, makeUser, type SignedIn, startPeopleServer } from '../users/_users.ts';

const clock = manualClock('2026-04-03T12:00:00.000Z');
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const day = '2026-04-01';
const range = `from=${day}&to=${day}`;
const site = 'alpha-site';
const segmentsUrl = `/v1/sites/${site}/segments`;

let server: TestServer;
let ana: SignedIn;
let bob: SignedIn;
let viewer: SignedIn;
let alphaAdmin = '';
let buyGoal = '';

function event(anon: string, minute: number, type: string, page: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: crypto.randomUUID(),
    site_id: site,
    anon_id: anon,
    ts: new Date(Date.parse(`${day}T10:00:00.000Z`) + minute * 60_000).toISOString(),
    type,
    url: `https://shop.example${page}`,
    context: { user_agent: chrome },
    ...extra,
  };
}

beforeAll(async () => {
  const started = await startPeopleServer(clock);
  server = started.server;
  await makeUser(started.context, 'ana@example.com', { memberships: [['alpha', 'analyst']] });
  await makeUser(started.context, 'bob@example.com', { memberships: [['alpha', 'analyst']] });
  await makeUser(started.context, 'vera@example.com', { memberships: [['alpha', 'viewer']] });
  ana = await login(server, { email: 'ana@example.com', password: goodPassword });
  bob = await login(server, { email: 'bob@example.com', password: goodPassword });
  viewer = await login(server, { email: 'vera@example.com', password: goodPassword });
  alphaAdmin = (await createKey(server, 'alpha', ['admin'])).plaintext;
  await send(server, site, [
    event('a', 0, 'pageview', '/', { referrer: 'https://www.google.com/' }),
    event('a', 1, 'pageview', '/pricing'),
    event('a', 2, 'purchase', '/thanks', { revenue: { amount: '9.99', currency: 'EUR' } }),
    event('b', 0, 'pageview', '/pricing', { context: { user_agent: iphone } }),
    event('c', 0, 'pageview', '/docs/', { referrer: 'https://www.google.com/' }),
    event('c', 3, 'pageview', '/pricing'),
    event('d', 0, 'pageview', '/?utm_source=news&utm_medium=email&utm_campaign=spring', { context: { user_agent: iphone } }),
  ]);
  const goal = await server.request('POST', `/v1/sites/${site}/goals`, { body: { name: 'Bought', kind: 'event', event_type: 'purchase' } });
  buyGoal = goal.body.id;
});
afterAll(() => server.close());

async function createSegment(body: Record<string, unknown>, as: Record<string, unknown> = {}): Promise<any> {
  const response = await server.request('POST', segmentsUrl, { body, ...as });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

describe('a segment is checked as a report checks its filters', () => {
  const valid = { name: 'Mobile', filters: { device: 'mobile' } };
  it.each([
    ['name of 128 characters', { ...valid, name: padTo(128) }, null],
    ['name of 129 characters', { ...valid, name: padTo(129) }, '/name'],
    ['20 values of a list filter', { ...valid, filters: { country: Array.from({ length: 20 }, (_, i) => `C${i}`).join(',') } }, null],
    ['21 values of a list filter', { ...valid, filters: { country: Array.from({ length: 21 }, (_, i) => `C${i}`).join(',') } }, '/filters/country'],
    ['an empty value in a list', { ...valid, filters: { device: 'mobile,' } }, '/filters/device'],
    ['internal include', { ...valid, filters: { internal: 'include' } }, null],
    ['internal maybe', { ...valid, filters: { internal: 'maybe' } }, '/filters/internal'],
    ['a goal of the site', { ...valid, filters: { goal: 'GOAL' } }, null],
    ['an unknown goal', { ...valid, filters: { goal: 'nope' } }, '/filters/goal'],
    ['an unknown filter', { ...valid, filters: { colour: 'red' } }, '/filters/colour'],
    ['a filter that is not text', { ...valid, filters: { device: ['mobile'] } }, '/filters/device'],
    ['no filter at all', { ...valid, filters: {} }, '/filters'],
    ['visibility site', { ...valid, visibility: 'site' }, null],
    ['visibility public', { ...valid, visibility: 'public' }, '/visibility'],
  ])('%s', async (_name, body, refusedAt) => {
    const sent = JSON.parse(JSON.stringify(body).replace('"GOAL"', JSON.stringify(buyGoal)));
    const response = await server.request('POST', segmentsUrl, { body: sent });
    if (refusedAt === null) {
      expect(response.status, response.text).toBe(201);
      expect(response.body).toMatchObject({ site_id: site, owner_id: 'admin', visibility: sent.visibility ?? 'personal', filters: sent.filters });
      expect((await server.request('DELETE', `${segmentsUrl}/${response.body.id}`)).status).toBe(204);
      return;
    }
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('invalid_payload');
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(refusedAt);
  });

  it('keeps at most 100 segments per site: the 100th is accepted, the 101st refused', async () => {
    const url = '/v1/sites/alpha-many/segments';
    expect((await server.request('POST', '/workspaces/alpha/sites', { body: { id: 'alpha-many', name: 'Many' } })).status).toBe(201);
    for (let index = 1; index <= 100; index++) {
      const response = await server.request('POST', url, { body: { name: `s${index}`, filters: { device: 'mobile' } } });
      expect(response.status, `segment ${index}: ${response.text}`).toBe(201);
    }
    const refused = await server.request('POST', url, { body: { name: 's101', filters: { device: 'mobile' } } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_payload');
  });
});

describe('who sees and changes a segment', () => {
  let personal: any;
  let shared: any;
  beforeAll(async () => {
    personal = await createSegment({ name: 'Ana only', filters: { device: 'mobile' } }, ana.as());
    shared = await createSegment({ name: 'Ana for all', filters: { device: 'desktop' }, visibility: 'site' }, ana.as());
  });

  it('lists the site\'s segments and the caller\'s own personal ones', async () => {
    const names = async (as: Record<string, unknown>) => (await server.request('GET', segmentsUrl, as)).body.segments.map((segment: { name: string }) => segment.name);
    expect(await names(ana.as())).toEqual(['Ana only', 'Ana for all']);
    expect(await names(bob.as())).toEqual(['Ana for all']);
    expect(await names(viewer.as())).toEqual(['Ana for all']);
    expect(personal.owner_id).toBe(`user:${ana.userId}`);
  });

  it.each([
    ['Bob cannot see Ana\'s personal segment', () => bob.as(), 'personal', 'PATCH', 404],
    ['an admin cannot see it either', () => ({ token: alphaAdmin }), 'personal', 'DELETE', 404],
    ['Bob may not change Ana\'s site segment', () => bob.as(), 'shared', 'PATCH', 403],
    ['Bob may not delete it', () => bob.as(), 'shared', 'DELETE', 403],
    ['a viewer may not change it', () => viewer.as(), 'shared', 'PATCH', 403],
    ['Ana changes her personal segment', () => ana.as(), 'personal', 'PATCH', 200],
    ['an admin changes a site segment', () => ({ token: alphaAdmin }), 'shared', 'PATCH', 200],
  ] as const)('%s', async (_name, as, which, method, status) => {
    const id = (which === 'personal' ? personal : shared).id;
    const response = await server.request(method, `${segmentsUrl}/${id}`, { ...as(), ...(method === 'PATCH' ? { body: { name: `${which} renamed` } } : {}) });
    expect(response.status, response.text).toBe(status);
  });

  it('a viewer reads but may not create; a personal segment of someone else is unknown to a report', async () => {
    expect((await server.request('POST', segmentsUrl, { ...viewer.as(), body: { name: 'v', filters: { device: 'mobile' } } })).status).toBe(403);
    const report = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?${range}&segment=${personal.id}`, bob.as());
    expect(report.status).toBe(400);
    expect(report.body.error.details[0].path).toBe('/segment');
    expect((await server.request('GET', `/v1/sites/${site}/reports/summary-v2?${range}&segment=${personal.id}`, ana.as())).status).toBe(200);
    expect((await server.request('GET', `/v1/sites/${site}/reports/summary-v2?${range}&segment=${shared.id}`, viewer.as())).status).toBe(200);
  });

  it('another workspace sees no such site', async () => {
    const betaAdmin = (await createKey(server, 'beta', ['admin'])).plaintext;
    expect((await server.request('GET', segmentsUrl, { token: betaAdmin })).status).toBe(404);
    expect((await server.request('PATCH', `/v1/sites/beta-site/segments/${shared.id}`, { token: betaAdmin, body: { name: 'x' } })).status).toBe(404);
  });
});

describe('segment=<id> answers exactly as its filters', () => {
  const reports = [
    'summary-v2',
    'pages-v2',
    'sources-v2',
    'campaigns-v2',
    'breakdown-v2?by=device',
    'goals-v2',
    'props-v2?type=purchase&property=plan',
  ];
  const filterSets: Record<string, string>[] = [
    { device: 'mobile' },
    { source: 'google.com', path: '/pricing,/docs/' },
    { goal: 'GOAL' },
    { goal: 'GOAL', device: 'desktop', internal: 'include' },
  ];
  it.each(filterSets.flatMap((filters) => reports.map((report) => [report, filters] as const)))('%s with %o', async (report, given) => {
    const filters = Object.fromEntries(Object.entries(given).map(([name, value]) => [name, value === 'GOAL' ? buyGoal : value]));
    const segment = await createSegment({ name: 'equal', filters });
    const join = report.includes('?') ? '&' : '?';
    const base = `/v1/sites/${site}/reports/${report}${join}${range}`;
    const bySegment = await server.request('GET', `${base}&segment=${segment.id}`);
    const byHand = await server.request('GET', `${base}&${new URLSearchParams(filters).toString()}`);
    expect(bySegment.status, bySegment.text).toBe(200);
    expect(byHand.status, byHand.text).toBe(200);
    expect(bySegment.body.data).toEqual(byHand.body.data);
    expect(bySegment.body.meta.filters).toEqual({ ...byHand.body.meta.filters, segment: segment.id });
    await server.request('DELETE', `${segmentsUrl}/${segment.id}`);
  });

  it('the filters really select: a mobile segment counts the two phone visits only', async () => {
    const segment = await createSegment({ name: 'phones', filters: { device: 'mobile' } });
    const summary = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?${range}&segment=${segment.id}`);
    expect(summary.body.data).toMatchObject({ visitors: 2, visits: 2, pageviews: 2 });
  });

  it.each([
    ['a filter the segment sets too', (id: string) => `segment=${id}&device=desktop`, '/device'],
    ['an unknown segment', () => 'segment=nope', '/segment'],
    ['a segment given twice', (id: string) => `segment=${id}&segment=${id}`, '/segment'],
  ])('refuses %s with 400 invalid_param', async (_name, parameters, path) => {
    const segment = await createSegment({ name: 'clash', filters: { device: 'mobile' } });
    const response = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?${range}&${parameters(segment.id)}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_param');
    expect(response.body.error.details[0].path).toBe(path);
  });
});
