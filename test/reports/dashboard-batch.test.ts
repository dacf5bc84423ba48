// dashboard-v2 (docs/reports.md, "The dashboard in one request"; issue 29): every panel of the dashboard in one
// answer, each panel equal to what its own endpoint answers for the same parameters, over a table of the views a
// user reaches (no filter, a filter the rollups carry, filters only raw events answer, a goal, a path, a rolling
// window, a comparison, weeks and months). The rankings, the summary's series and the goals are read together (one
// scan of the raw visits); equality with the one-by-one reads, and with naive counts where they share code, is what
// proves that reading them together changed nothing. The countries table is the map's first rows: a tie at its cut
// is ordered as breakdown-v2 orders it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { chrome, iphone, poll, send } from '../events/_helpers.ts';
import { naiveGoal, naiveSummary } from './naive-reports.ts';

// Now is inside the last day, so a range ending today is a running one (compared as far as it has run).
const clock = manualClock('2026-03-10T12:30:00.000Z');
const siteId = 'batch';
let server: TestServer;
let goalId: string;
/** Addresses of four countries: the countries panel and the map have rows to rank. */
const ips = ['8.8.8.8', '81.2.69.142', '2.16.0.1', '1.1.1.1'];

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
          context: { user_agent: agent, ip: ips[person % ips.length] },
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
          context: { user_agent: agent, ip: ips[person % ips.length] },
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
  const purchase = await server.request('POST', `/v1/sites/${siteId}/goals`, { body: { name: 'Purchase', kind: 'event', event_type: 'purchase' } });
  expect(purchase.status, purchase.text).toBe(201);
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
    ['one day, a goal (hours)', { from: '2026-03-08', to: '2026-03-08', goal: 'GOAL' }],
    ['the last 24 hours with a goal', { from: '2026-03-09', to: '2026-03-10', since: '2026-03-09T13:00:00Z', goal: 'GOAL', compare: 'previous' }],
    ['weeks, filters only raw events answer', { from: '2026-03-01', to: '2026-03-10', interval: 'week', source: 'Google', device: 'desktop' }],
    ['weeks, one filter (rollups)', { from: '2026-03-01', to: '2026-03-10', interval: 'week', device: 'mobile' }],
    ['months, a goal and a comparison', { from: '2026-03-01', to: '2026-03-10', interval: 'month', goal: 'GOAL', compare: 'previous' }],
    ['a country, a small limit', { from: '2026-03-04', to: '2026-03-10', country: 'US', path: '/docs', limit: '1' }],
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
    ['no filter', {}],
    ['two visit filters (raw events)', { device: 'desktop', browser: 'Chrome' }],
    ['a path and a device (raw events)', { path: '/pricing', device: 'mobile' }],
  ] as [string, Record<string, string>][])('counts the summary and the goals as a naive count does: %s', async (_label, filters) => {
    const range = { from: '2026-03-04', to: '2026-03-10' };
    const batch = await get(`/v1/sites/${siteId}/reports/dashboard-v2?${new URLSearchParams({ ...range, ...filters })}`);
    const query = { siteIds: [siteId], ...range, filters: Object.fromEntries(Object.entries(filters).map(([name, value]) => [name, [value]])) };
    const summary = naiveSummary(server.db, query);
    expect(batch.data.summary.data).toEqual(summary);
    const goals = [
      ['Pricing', (row: { type: string; path: string | null }) => row.type === 'pageview' && row.path === '/pricing'],
      ['Purchase', (row: { type: string }) => row.type === 'purchase'],
    ] as const;
    for (const [name, converts] of goals) {
      const row = batch.data.goals.data.rows.find((goal: { name: string }) => goal.name === name);
      const naive = naiveGoal(server.db, query, converts);
      expect({ visitors: row.visitors, conversions: row.conversions }, name).toEqual({ visitors: naive.visitors, conversions: naive.conversions });
      expect(row.conversion_rate, name).toBe(summary.visitors === 0 ? 0 : Math.round((naive.visitors / summary.visitors) * 10_000) / 10_000);
      const revenue = [...naive.revenue].map(([currency, minor]) => ({ currency, minor }));
      expect(row.revenue.map((entry: { currency: string; amount: string }) => ({ currency: entry.currency, minor: Math.round(Number(entry.amount) * 100) })), name).toEqual(revenue);
    }
    // Something converts in each view: equal zeros would prove nothing.
    expect(batch.data.goals.data.rows.some((row: { conversions: number }) => row.conversions > 0)).toBe(true);
  });

  it.each([
    ['week', { device: 'desktop', browser: 'Chrome' }],
    ['month', { device: 'desktop', browser: 'Chrome' }],
    ['week', { path: '/docs', device: 'mobile' }],
  ] as [string, Record<string, string>][])('a %s\'s point counts its days as a naive count of them does (%o)', async (interval, filters) => {
    const range = { from: '2026-03-01', to: '2026-03-10' };
    const batch = await get(`/v1/sites/${siteId}/reports/dashboard-v2?${new URLSearchParams({ ...range, ...filters, interval })}`);
    const series = batch.data.summary.data.series as { date: string; visitors: number; visits: number; pageviews: number }[];
    expect(series.length).toBeGreaterThan(0);
    const dayBefore = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    for (const [index, point] of series.entries()) {
      const to = index + 1 < series.length ? dayBefore(series[index + 1]!.date) : range.to;
      const naive = naiveSummary(server.db, { siteIds: [siteId], from: point.date, to, filters: Object.fromEntries(Object.entries(filters).map(([name, value]) => [name, [value]])) });
      expect(point, `${point.date} to ${to}`).toEqual({ date: point.date, visitors: naive.visitors, visits: naive.visits, pageviews: naive.pageviews });
    }
    expect(series.some((point) => point.visits > 0)).toBe(true);
  });

  it.each([
    ['no filter (rollups)', {}],
    ['two filters (raw events)', { device: 'desktop', browser: 'Chrome' }],
  ] as [string, Record<string, string>][])('takes the countries table from the map, a tie at its cut ordered as breakdown-v2 orders it: %s', async (_label, filters) => {
    const site = `ties${Object.keys(filters).length}`;
    await seedWorkspace(server, site, { sites: [site] });
    // Visits by country: 3, 2, 2, 1 (one pageview each, a visitor each): the second and third tie across limit=2.
    const counts = [3, 2, 2, 1];
    const events = counts.flatMap((count, country) =>
      Array.from({ length: count }, (_, index) => ({
        id: crypto.randomUUID(),
        site_id: site,
        anon_id: `c${country}-${index}`,
        ts: `2026-03-05T1${index}:00:00.000Z`,
        type: 'pageview',
        url: 'https://ties.example/',
        context: { user_agent: chrome, ip: ips[country] },
      })),
    );
    await send(server, site, events);
    await server.projected();
    const query = new URLSearchParams({ from: '2026-03-04', to: '2026-03-10', ...filters, limit: '2' });
    const batch = await get(`/v1/sites/${site}/reports/dashboard-v2?${query}`);
    const map = batch.data.map.data.rows as { value: string; visits: number }[];
    expect(map.map((row) => row.visits)).toEqual(counts);
    const alone = await get(`/v1/sites/${site}/reports/breakdown-v2?${query}&by=country`);
    expect(batch.data.countries).toEqual(alone);
    expect(batch.data.countries.data.rows).toEqual(map.slice(0, 2));
    expect(batch.data.countries.meta.truncated).toBe(true);
    expect(batch.data.map.meta.truncated).toBe(false);
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
