// Goals over HTTP (CONTRACT section 10): every field at its edge, the site's limit of goals, who may read and who
// may write (viewers read only; another workspace's site is a 404), goals-v2 against figures computed by hand, and
// goal=<id> on the V2 reports (visits that converted on it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../_setup.ts';
import { createKey, manualClock, padTo } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';
import { login, makeUser, type SignedIn, startPeopleServer } from '../users/_users.ts';
import { goodPassword } from '../users/_users.ts';

const clock = manualClock('2026-04-03T12:00:00.000Z');
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const day = '2026-04-01';
const range = `from=${day}&to=${day}`;
const site = 'alpha-site';
const goalsUrl = `/v1/sites/${site}/goals`;

let server: TestServer;
let analyst: SignedIn;
let viewer: SignedIn;
let betaAdmin = '';

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
  await makeUser(started.context, 'analyst@example.com', { memberships: [['alpha', 'analyst']] });
  await makeUser(started.context, 'viewer@example.com', { memberships: [['alpha', 'viewer']] });
  analyst = await login(server, { email: 'analyst@example.com', password: goodPassword });
  viewer = await login(server, { email: 'viewer@example.com', password: goodPassword });
  betaAdmin = (await createKey(server, 'beta', ['admin'])).plaintext;
  // a: /pricing, then buys on the pro plan for 20.00 EUR. b: /docs/, then buys for 5.00 USD. c: /docs only.
  // d: / only. Four visitors, one visit each.
  await send(server, site, [
    event('a', 0, 'pageview', '/pricing'),
    event('a', 1, 'purchase', '/thanks', { props: { plan: 'pro' }, revenue: { amount: '20.00', currency: 'EUR' } }),
    event('b', 0, 'pageview', '/docs/'),
    event('b', 2, 'purchase', '/thanks', { props: { plan: 'free' }, revenue: { amount: '5.00', currency: 'USD' } }),
    event('c', 0, 'pageview', '/docs'),
    event('d', 0, 'pageview', '/'),
  ]);
});
afterAll(() => server.close());

async function createGoal(body: Record<string, unknown>): Promise<string> {
  const response = await server.request('POST', goalsUrl, { body });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

describe('a goal is checked at the edge', () => {
  const valid = { name: 'Signed up', kind: 'event', event_type: 'signup' };
  it.each([
    ['name of 128 characters', { ...valid, name: padTo(128) }, null],
    ['name of 129 characters', { ...valid, name: padTo(129) }, '/name'],
    ['empty name', { ...valid, name: '  ' }, '/name'],
    ['path of 512 characters', { name: 'p', kind: 'pageview', path: '/' + padTo(511) }, null],
    ['path of 513 characters', { name: 'p', kind: 'pageview', path: '/' + padTo(512) }, '/path'],
    ['path ending in *', { name: 'p', kind: 'pageview', path: '/docs/*' }, null],
    ['path with * inside', { name: 'p', kind: 'pageview', path: '/do*cs' }, '/path'],
    ['path without a leading /', { name: 'p', kind: 'pageview', path: 'docs' }, '/path'],
    ['path with a space', { name: 'p', kind: 'pageview', path: '/a b' }, '/path'],
    ['pageview goal without a path', { name: 'p', kind: 'pageview' }, '/path'],
    ['pageview goal with an event type', { name: 'p', kind: 'pageview', path: '/', event_type: 'signup' }, '/event_type'],
    ['event goal without a type', { name: 'e', kind: 'event' }, '/event_type'],
    ['event type of 64 characters', { ...valid, event_type: 's' + padTo(63) }, null],
    ['event type of 65 characters', { ...valid, event_type: 's' + padTo(64) }, '/event_type'],
    ['event type starting with a digit', { ...valid, event_type: '1signup' }, '/event_type'],
    ['unknown kind', { ...valid, kind: 'click' }, '/kind'],
    ['10 props', { ...valid, props: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'v'])) }, null],
    ['11 props', { ...valid, props: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])) }, '/props'],
    ['prop key of 64 characters', { ...valid, props: { [padTo(64)]: 'v' } }, null],
    ['prop key of 65 characters', { ...valid, props: { [padTo(65)]: 'v' } }, `/props/${padTo(65)}`],
    ['prop value of 256 characters', { ...valid, props: { plan: padTo(256) } }, null],
    ['prop value of 257 characters', { ...valid, props: { plan: padTo(257) } }, '/props/plan'],
    ['a number as prop value', { ...valid, props: { seats: 3 } }, '/props/seats'],
    ['unknown field', { ...valid, colour: 'red' }, '/colour'],
  ])('%s', async (_name, body, refusedAt) => {
    const response = await server.request('POST', goalsUrl, { body });
    if (refusedAt === null) {
      expect(response.status, response.text).toBe(201);
      await server.request('DELETE', `${goalsUrl}/${response.body.id}`);
      return;
    }
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('invalid_payload');
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(refusedAt);
  });

  it('changes a goal as a whole: PATCH merges, null clears, and the merged goal is checked again', async () => {
    const id = await createGoal({ name: 'Docs', kind: 'pageview', path: '/docs/*' });
    const changed = await server.request('PATCH', `${goalsUrl}/${id}`, { body: { kind: 'event', event_type: 'download', path: null } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id, name: 'Docs', kind: 'event', event_type: 'download' });
    expect(changed.body.path).toBeUndefined();
    const refused = await server.request('PATCH', `${goalsUrl}/${id}`, { body: { kind: 'pageview' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].path).toBe('/path');
    expect((await server.request('GET', goalsUrl)).body.goals.find((goal: { id: string }) => goal.id === id)).toMatchObject({ kind: 'event' });
    expect((await server.request('DELETE', `${goalsUrl}/${id}`)).status).toBe(204);
    expect((await server.request('DELETE', `${goalsUrl}/${id}`)).status).toBe(404);
  });

  it('keeps at most 50 goals per site: the 50th is accepted, the 51st refused', async () => {
    const other = '/v1/sites/alpha-limits/goals';
    const created = await server.request('POST', '/workspaces/alpha/sites', { body: { id: 'alpha-limits', name: 'Limits' } });
    expect(created.status).toBe(201);
    for (let index = 1; index <= 50; index++) {
      const response = await server.request('POST', other, { body: { name: `goal ${index}`, kind: 'pageview', path: `/p${index}` } });
      expect(response.status, `goal ${index}: ${response.text}`).toBe(201);
    }
    const refused = await server.request('POST', other, { body: { name: 'goal 51', kind: 'pageview', path: '/p51' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_payload');
    expect((await server.request('GET', other)).body.goals).toHaveLength(50);
  });
});

describe('who may read and write goals', () => {
  it.each([
    ['an analyst creates', () => analyst.as(), 'POST', 201],
    ['a viewer may not create', () => viewer.as(), 'POST', 403],
    ['a viewer lists', () => viewer.as(), 'GET', 200],
    ['another workspace\'s admin sees no such site', () => ({ token: betaAdmin }), 'POST', 404],
    ['another workspace\'s admin cannot list', () => ({ token: betaAdmin }), 'GET', 404],
    ['no credential', () => ({ token: null }), 'GET', 401],
  ] as const)('%s', async (_name, as, method, status) => {
    const response = await server.request(method, goalsUrl, { ...as(), ...(method === 'POST' ? { body: { name: 'Role goal', kind: 'pageview', path: '/role' } } : {}) });
    expect(response.status, response.text).toBe(status);
  });

  it('a goal of another site is a 404, as a missing one', async () => {
    const id = await createGoal({ name: 'Here', kind: 'pageview', path: '/here' });
    expect((await server.request('PATCH', `/v1/sites/beta-site/goals/${id}`, { body: { name: 'x' } })).status).toBe(404);
    expect((await server.request('DELETE', `/v1/sites/beta-site/goals/${id}`)).status).toBe(404);
    expect((await server.request('DELETE', `${goalsUrl}/${id}`)).status).toBe(204);
  });
});

describe('goals-v2 and the goal filter, computed by hand', () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    for (const goal of (await server.request('GET', goalsUrl)).body.goals) await server.request('DELETE', `${goalsUrl}/${goal.id}`);
    ids.pricing = await createGoal({ name: 'Pricing', kind: 'pageview', path: '/pricing' });
    ids.docs = await createGoal({ name: 'Docs', kind: 'pageview', path: '/docs/*' });
    ids.buy = await createGoal({ name: 'Bought', kind: 'event', event_type: 'purchase' });
    ids.pro = await createGoal({ name: 'Bought pro', kind: 'event', event_type: 'purchase', props: { plan: 'pro' } });
  });

  it('answers each goal: unique conversions, conversions, the rate as a fraction of the site\'s 4 visitors, revenue per currency', async () => {
    const response = await server.request('GET', `/v1/sites/${site}/reports/goals-v2?${range}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.rows).toEqual([
      { goal_id: ids.pricing, name: 'Pricing', visitors: 1, conversions: 1, conversion_rate: 0.25, revenue: [] },
      // /docs/* matches b's /docs/, not c's /docs.
      { goal_id: ids.docs, name: 'Docs', visitors: 1, conversions: 1, conversion_rate: 0.25, revenue: [] },
      { goal_id: ids.buy, name: 'Bought', visitors: 2, conversions: 2, conversion_rate: 0.5, revenue: [{ currency: 'EUR', amount: '20.00' }, { currency: 'USD', amount: '5.00' }] },
      { goal_id: ids.pro, name: 'Bought pro', visitors: 1, conversions: 1, conversion_rate: 0.25, revenue: [{ currency: 'EUR', amount: '20.00' }] },
    ]);
    expect(response.body.meta.range).toEqual({ from: day, to: day });
  });

  it('filters every V2 report to the visits that converted on a goal', async () => {
    const summary = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?${range}&goal=${ids.buy}`);
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body.data).toMatchObject({ visitors: 2, visits: 2, pageviews: 2, events: 4, bounce_rate: 0 });
    expect(summary.body.meta.filters.goal).toBe(ids.buy);
    const pages = await server.request('GET', `/v1/sites/${site}/reports/pages-v2?${range}&goal=${ids.pro}`);
    // The purchase on /thanks is an event of that path (a row without views), as in every pages-v2 answer.
    expect(pages.body.data.rows).toEqual([
      { path: '/pricing', visitors: 1, pageviews: 1, entries: 1, exits: 1 },
      { path: '/thanks', visitors: 0, pageviews: 0, entries: 0, exits: 0 },
    ]);
    const sources = await server.request('GET', `/v1/sites/${site}/reports/sources-v2?${range}&goal=${ids.docs}`);
    expect(sources.body.data.rows).toEqual([{ source: 'direct', visitors: 1, visits: 1, pageviews: 1, bounce_rate: 0 }]);
    const props = await server.request('GET', `/v1/sites/${site}/reports/props-v2?${range}&type=purchase&property=plan&goal=${ids.pro}`);
    expect(props.body.data.rows).toEqual([{ value: 'pro', events: 1, visitors: 1 }]);
    const goals = await server.request('GET', `/v1/sites/${site}/reports/goals-v2?${range}&goal=${ids.buy}`);
    // Among the two buyers' visits: each goal's rate over 2 visitors.
    expect(goals.body.data.rows.map((row: { visitors: number; conversion_rate: number }) => [row.visitors, row.conversion_rate])).toEqual([[1, 0.5], [1, 0.5], [2, 1], [1, 0.5]]);
  });

  it.each([
    ['an unknown goal', 'goal=00000000-0000-4000-8000-000000000000'],
    ['a goal given twice', 'goal=a&goal=b'],
  ])('refuses %s with 400 invalid_param', async (_name, parameter) => {
    const response = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?${range}&${parameter}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_param');
    expect(response.body.error.details[0].path).toBe('/goal');
  });

  it.each(['list-v2', 'overview-v2', 'activity-v2'])('events/%s refuses goal= and segment= rather than answer unfiltered', async (endpoint) => {
    for (const parameter of [`goal=${ids.buy}`, 'segment=any']) {
      const response = await server.request('GET', `/v1/sites/${site}/events/${endpoint}?${range}&${parameter}`);
      expect(response.status, response.text).toBe(400);
      expect(response.body.error.code).toBe('invalid_param');
      expect(response.body.error.details[0].path).toBe(`/${parameter.split('=')[0]}`);
    }
  });

  it('refuses a goal of another site of the workspace as unknown', async () => {
    const created = await server.request('POST', '/workspaces/alpha/sites', { body: { id: 'alpha-other', name: 'Other' } });
    expect(created.status).toBe(201);
    const response = await server.request('GET', `/v1/sites/alpha-other/reports/summary-v2?${range}&goal=${ids.buy}`);
    expect(response.status).toBe(400);
  });
});
