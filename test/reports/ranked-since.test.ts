// since= on the ranked reports (docs/reports.md, "A rolling window: since"; issue 29): pages-v2, sources-v2,
// campaigns-v2, breakdown-v2 and goals-v2 count the same window summary-v2 counts, exactly: events at or after
// `since`, visits starting at or after it. At its edges: a visit exactly at since counts, one a millisecond before
// does not, and a visit that started before since and goes on after it counts its later events but not as a visit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { chrome, iphone, poll, send } from '../events/_helpers.ts';

const clock = manualClock('2026-03-05T14:30:00.000Z');
const siteId = 'ranked-window';
const since = '2026-03-04T15:00:00Z';
const sinceMs = Date.parse(since);
const range = { from: '2026-03-04', to: '2026-03-05' };
let server: TestServer;
let goalIds: Record<string, string> = {};

function pageview(anonId: string, ms: number, path: string, extra: Record<string, unknown> = {}, agent = chrome): Record<string, unknown> {
  return { id: crypto.randomUUID(), site_id: siteId, anon_id: anonId, ts: new Date(ms).toISOString(), type: 'pageview', url: `https://window.example${path}`, context: { user_agent: agent }, ...extra };
}

/** Four visitors, one visit each. */
const events = [
  // At since exactly: in the window, on an iPhone, from at.example, campaign "at".
  pageview('at', sinceMs, '/at-since?utm_source=at&utm_medium=email&utm_campaign=at', {}, iphone),
  // One millisecond before: out of the window whole.
  pageview('before', sinceMs - 1, '/before-since?utm_source=before&utm_medium=email&utm_campaign=before', { referrer: 'https://before.example/' }),
  // Starts 10 minutes before since and goes on 5 minutes after it: its second pageview counts, its visit does not.
  pageview('crossing', sinceMs - 10 * 60_000, '/crossing-start', { referrer: 'https://crossing.example/' }),
  pageview('crossing', sinceMs + 5 * 60_000, '/crossing-end'),
  // Well inside: today.
  pageview('today', Date.parse('2026-03-05T09:00:00Z'), '/at-since', { referrer: 'https://today.example/' }),
];

beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'ranked-window', { sites: [siteId] });
  for (const path of ['/at-since', '/before-since']) {
    const goal = await server.request('POST', `/v1/sites/${siteId}/goals`, { body: { name: path, kind: 'pageview', path } });
    expect(goal.status, goal.text).toBe(201);
    goalIds[path] = goal.body.id;
  }
  await send(server, siteId, events);
  await poll(async () => {
    const { freshness } = (await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=2026-03-04&to=2026-03-05`)).body.meta;
    return freshness.watermark !== null && freshness.watermark === freshness.projected_through ? true : undefined;
  }, 120_000);
}, 180_000);
afterAll(() => server?.close());

async function rows(report: string, extra: Record<string, string> = {}): Promise<Record<string, unknown>[]> {
  const response = await server.request('GET', `/v1/sites/${siteId}/reports/${report}?${new URLSearchParams({ ...range, ...extra })}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data.rows;
}

const keyed = (list: Record<string, unknown>[], key: string, fields: string[]) =>
  Object.fromEntries(list.map((row) => [row[key], Object.fromEntries(fields.map((field) => [field, row[field]]))]));

describe('the ranked reports count the window since= names', () => {
  it.each([
    [
      'pages-v2 by path',
      'pages-v2',
      {},
      'path',
      ['visitors', 'pageviews', 'entries'],
      {
        '/at-since': { visitors: 2, pageviews: 2, entries: 2 },
        '/crossing-end': { visitors: 1, pageviews: 1, entries: 0 },
      },
      ['/at-since', '/before-since', '/crossing-start', '/crossing-end'],
    ],
    [
      'sources-v2',
      'sources-v2',
      {},
      'source',
      ['visitors', 'visits', 'pageviews'],
      {
        at: { visitors: 1, visits: 1, pageviews: 1 },
        'today.example': { visitors: 1, visits: 1, pageviews: 1 },
        // The crossing visit started before since: its later pageview counts, the visit does not.
        'crossing.example': { visitors: 1, visits: 0, pageviews: 1 },
      },
      ['at', 'before', 'crossing.example', 'today.example'],
    ],
    ['campaigns-v2', 'campaigns-v2', {}, 'utm_campaign', ['visits'], { at: { visits: 1 } }, ['at', 'before']],
    ['breakdown-v2 by device', 'breakdown-v2', { by: 'device' }, 'value', ['visitors', 'visits'], { mobile: { visitors: 1, visits: 1 }, desktop: { visitors: 2, visits: 1 } }, ['mobile', 'desktop']],
  ])('%s', async (_label, report, extra, key, fields, windowRows, everyKey) => {
    const inWindow = await rows(report, { ...extra, since });
    expect(keyed(inWindow, key, fields)).toEqual(windowRows);
    // Without since the two days count whole: every key is there (the window left some out).
    const whole = await rows(report, extra);
    expect(whole.map((row) => row[key]).sort()).toEqual([...new Set(everyKey)].sort());
  });

  it('goals-v2: a conversion at since counts, one a millisecond before does not; the rate is of the window\'s visitors', async () => {
    const inWindow = keyed(await rows('goals-v2', { since }), 'name', ['visitors', 'conversions', 'conversion_rate']);
    expect(inWindow).toEqual({
      '/at-since': { visitors: 2, conversions: 2, conversion_rate: 0.6667 },
      '/before-since': { visitors: 0, conversions: 0, conversion_rate: 0 },
    });
    const whole = keyed(await rows('goals-v2'), 'name', ['visitors', 'conversions']);
    expect(whole['/before-since']).toEqual({ visitors: 1, conversions: 1 });
  });

  it('the window\'s totals equal summary-v2\'s since= totals', async () => {
    const summary = (await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?${new URLSearchParams({ ...range, since })}`)).body.data;
    const sources = await rows('sources-v2', { since });
    expect(sources.reduce((sum, row) => sum + (row.visits as number), 0)).toBe(summary.visits);
    expect(sources.reduce((sum, row) => sum + (row.pageviews as number), 0)).toBe(summary.pageviews);
  });

  it.each([
    ['pages-v2', 'the first hour of the first day', '2026-03-04T00:00:00Z', 200],
    ['sources-v2', 'the last hour of the first day', '2026-03-04T23:00:00Z', 200],
    ['campaigns-v2', 'an hour of the second day', '2026-03-05T00:00:00Z', 400],
    ['breakdown-v2?by=os&x=', 'an hour before the range', '2026-03-03T23:00:00Z', 400],
    ['goals-v2', 'not a whole hour', '2026-03-04T15:30:00Z', 400],
    ['pages-v2', 'not a time', 'yesterday', 400],
  ])('%s since at %s (%s) → %i', async (report, _label, value, status) => {
    const [name, own = ''] = report.split('?');
    const response = await server.request('GET', `/v1/sites/${siteId}/reports/${name}?${new URLSearchParams({ ...range, since: value })}&${own}`);
    expect(response.status, response.text).toBe(status);
    if (status === 400) expect(response.body).toEqual({ error: { code: 'invalid_param', message: expect.any(String), details: [{ path: '/since', message: expect.any(String) }] } });
  });

  it('a later page of pages-v2 keeps the window: its cursor is refused for the whole days', async () => {
    const first = await server.request('GET', `/v1/sites/${siteId}/reports/pages-v2?${new URLSearchParams({ ...range, since, limit: '1' })}`);
    expect(first.status, first.text).toBe(200);
    const next = first.body.meta.cursor.next as string;
    const second = await server.request('GET', `/v1/sites/${siteId}/reports/pages-v2?${new URLSearchParams({ ...range, since, limit: '1', cursor: next })}`);
    expect(second.body.data.rows.map((row: { path: string }) => row.path)).toEqual(['/crossing-end']);
    const elsewhere = await server.request('GET', `/v1/sites/${siteId}/reports/pages-v2?${new URLSearchParams({ ...range, limit: '1', cursor: next })}`);
    expect(elsewhere.status).toBe(400);
  });
});
