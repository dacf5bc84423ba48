// dashboard-v2 (docs/reports.md, "The dashboard in one request"; issue 29): every panel of the dashboard in one
// answer, each panel equal to what its own endpoint answers for the same parameters, over a table of the views a
// user reaches (no filter, a filter the rollups carry, filters only raw events answer, a goal, a path, a rolling
// window, a comparison). The rankings are read together (one scan of the raw visits); equality with the one-by-one
// reads is what proves that reading them together changed nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { chrome, iphone, poll, send } from '../events/_helpers.ts';

// Now is inside the last day, so a range ending today is a running one (compared as far as it has run).
const clock = manualClock('2026-03-10T12:30:00.000Z');
const siteId = 'batch';
let server: TestServer;
let goalId: string;

/** A small deterministic generator (the same data on every run). */
function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const origins: { referrer?: string; query?: string }[] = [
  { referrer: 'https://www.google.com/search?q=a' },
  { referrer: 'https://www.google.de/' },
  { query: '?utm_source=newsletter&utm_medium=email&utm_campaign=march' },
  { query: '?utm_source=Google&utm_medium=cpc&utm_campaign=brand' },
  { referrer: 'https://t.co/xyz' },
  { referrer: 'https://blog.example/post' },
  {},
];

function dataSet(): Record<string, unknown>[] {
  const random = generator(11);
  const events: Record<string, unknown>[] = [];
  for (let person = 0; person < 90; person++) {
    const agent = random() < 0.4 ? iphone : chrome;
    const visits = 1 + Math.floor(random() * 3);
    for (let visit = 0; visit < visits; visit++) {
      const origin = origins[Math.floor(random() * origins.length)]!;
      const start = Date.parse('2026-03-04T00:00:00Z') + Math.floor(random() * 7) * 86_400_000 + Math.floor(random() * 23) * 3_600_000 + Math.floor(random() * 600) * 1000;
      const views = 1 + Math.floor(random() * 3);
      for (let view = 0; view < views; view++) {
        const path = ['/', '/pricing', '/docs', '/signup'][Math.floor(random() * 4)]!;
        events.push({
          id: crypto.randomUUID(),
          site_id: siteId,
          anon_id: `p${person}`,
          ts: new Date(start + view * 60_000).toISOString(),
          type: 'pageview',
          url: `https://batch.example${path}${view === 0 ? (origin.query ?? '') : ''}`,
          ...(view === 0 && origin.referrer ? { referrer: origin.referrer } : {}),
          context: { user_agent: agent },
        });
      }
      if (random() < 0.3) {
        events.push({
          id: crypto.randomUUID(),
          site_id: siteId,
          anon_id: `p${person}`,
          ts: new Date(start + views * 60_000).toISOString(),
          type: 'purchase',
          url: 'https://batch.example/checkout',
          revenue: { amount: '12.50', currency: 'EUR' },
          context: { user_agent: agent },
        });
      }
    }
  }
  return events.filter((event) => Date.parse(event.ts as string) < clock.now());
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'batch', { sites: [siteId] });
  const goal = await server.request('POST', `/v1/sites/${siteId}/goals`, { body: { name: 'Pricing', kind: 'pageview', path: '/pricing' } });
  expect(goal.status, goal.text).toBe(201);
  goalId = goal.body.id;
  await send(server, siteId, dataSet());
  await poll(async () => {
    const { freshness } = (await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=2026-03-01&to=2026-03-10`)).body.meta;
    return freshness.watermark !== null && freshness.watermark === freshness.projected_through ? true : undefined;
  }, 120_000);
}, 180_000);
afterAll(() => server?.close());

async function get(path: string): Promise<any> {
  const response = await server.request('GET', path);
  expect(response.status, `${path}: ${response.text}`).toBe(200);
  return response.body;
}

/** The endpoint (and its own parameters) each panel of dashboard-v2 must equal. */
const panels: [string, string, Record<string, string>][] = [
  ['pages', 'pages-v2', { limit: '10' }],
  ['sources', 'sources-v2', { limit: '10', grouped: 'true' }],
  ['campaigns', 'campaigns-v2', { limit: '10' }],
  ['goals', 'goals-v2', {}],
  ['countries', 'breakdown-v2', { by: 'country', limit: '10' }],
  ['devices', 'breakdown-v2', { by: 'device', limit: '10' }],
  ['browsers', 'breakdown-v2', { by: 'browser', limit: '10' }],
  ['operating_systems', 'breakdown-v2', { by: 'os', limit: '10' }],
  ['map', 'breakdown-v2', { by: 'country', limit: '200' }],
];

describe('dashboard-v2: every panel in one answer, each equal to its own endpoint', () => {
  it.each([
    ['no filter (rollups)', { from: '2026-03-04', to: '2026-03-10' }],
    ['a source group (one filtered dimension)', { from: '2026-03-04', to: '2026-03-10', source: 'Google' }],
    ['a source and a device (raw events)', { from: '2026-03-04', to: '2026-03-10', source: 'Google', device: 'mobile' }],
    ['a path', { from: '2026-03-04', to: '2026-03-10', path: '/pricing' }],
    ['a path and a browser (raw events)', { from: '2026-03-04', to: '2026-03-10', path: '/docs', browser: 'Chrome' }],
    ['a goal', { from: '2026-03-04', to: '2026-03-10', goal: 'GOAL' }],
    ['a comparison of a running period', { from: '2026-03-04', to: '2026-03-10', compare: 'previous', source: 'newsletter' }],
    ['the last 24 hours (since)', { from: '2026-03-09', to: '2026-03-10', since: '2026-03-09T13:00:00Z', compare: 'previous' }],
    ['the last 24 hours with a filter', { from: '2026-03-09', to: '2026-03-10', since: '2026-03-09T13:00:00Z', device: 'desktop' }],
    ['one day, a small limit', { from: '2026-03-08', to: '2026-03-08', limit: '2' }],
  ] as [string, Record<string, string>][])('%s', async (_label, asked) => {
    const query = Object.fromEntries(Object.entries(asked).map(([name, value]) => [name, value === 'GOAL' ? goalId : value]));
    const { limit = '10', compare, since, ...common } = query;
    const batch = await get(`/v1/sites/${siteId}/reports/dashboard-v2?${new URLSearchParams({ ...query, grouped: 'true' })}`);
    const window: Record<string, string> = since ? { since } : {};
    const summary = await get(`/v1/sites/${siteId}/reports/summary-v2?${new URLSearchParams({ ...common, ...window, ...(compare ? { compare } : {}) } as Record<string, string>)}`);
    expect(batch.data.summary).toEqual(summary);
    for (const [name, report, own] of panels) {
      const ownLimit: Record<string, string> = own.limit === undefined ? {} : { limit: own.limit === '10' ? limit : own.limit };
      const alone = await get(`/v1/sites/${siteId}/reports/${report}?${new URLSearchParams({ ...common, ...own, ...ownLimit, ...window })}`);
      expect(batch.data[name], name).toEqual(alone);
    }
    // The data set answers something in each view: equal empty lists would prove nothing.
    expect(batch.data.pages.data.rows.length + batch.data.sources.data.rows.length).toBeGreaterThan(0);
    expect(batch.meta.range).toEqual({ from: query.from, to: query.to });
  });

  it('reads the rankings from one scan: a filter only raw events answer says so on every ranking', async () => {
    const batch = await get(`/v1/sites/${siteId}/reports/dashboard-v2?from=2026-03-04&to=2026-03-10&source=Google&device=mobile`);
    for (const name of ['pages', 'sources', 'campaigns', 'countries', 'devices', 'browsers', 'operating_systems', 'map']) expect(batch.data[name].meta.computed_from, name).toBe('events');
    expect(batch.meta.computed_from).toBe('events');
  });

  it.each([
    ['limit 1 (the smallest)', 'limit=1', 200],
    ['limit 200 (the largest)', 'limit=200', 200],
    ['limit 0', 'limit=0', 400],
    ['limit 201', 'limit=201', 400],
    ['since on another day', 'since=2026-03-05T13:00:00Z', 400],
    ['an unknown compare', 'compare=last', 400],
    ['grouped not a boolean', 'grouped=yes', 400],
  ])('%s: %s → %i (access, ranges, filters and limit at their edges: limits.test.ts)', async (_label, extra, status) => {
    const response = await server.request('GET', `/v1/sites/${siteId}/reports/dashboard-v2?from=2026-03-04&to=2026-03-10&${extra}`);
    expect(response.status, response.text).toBe(status);
    if (status === 400) expect(response.body.error.code).toBe('invalid_param');
  });

});
