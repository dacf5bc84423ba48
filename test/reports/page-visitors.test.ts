// CONTRACT section 10 over HTTP: a page's visitors are the people with a pageview of that path; a custom event on the
// path (a `signup` on /signup) counts as one of its events, never as a visitor. The same rule holds for a path filter,
// whether the rollups answer (one filter) or the raw events do (a path and a source filter), and entries and exits
// keep their definitions (a visit's first event, its last pageview). Issue 24, defect 7: /signup showed more visitors
// than views because a signup event counted its visitor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';

const clock = manualClock('2026-04-02T12:00:00.000Z');
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const siteId = 'pv-site';
const day = '2026-04-01';
const range = `from=${day}&to=${day}`;

let server: TestServer;

function event(anon: string, minute: number, type: string, page: string): Record<string, unknown> {
  return {
    id: crypto.randomUUID(),
    site_id: siteId,
    anon_id: anon,
    ts: new Date(Date.parse(`${day}T10:00:00.000Z`) + minute * 60_000).toISOString(),
    type,
    url: `https://s.example${page}`,
    context: { user_agent: chrome },
  };
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'pv', { sites: [siteId] });
  await send(server, siteId, [
    // viewer: views the form and signs up.
    event('viewer', 0, 'pageview', '/signup?ref=nav'),
    event('viewer', 1, 'signup', '/signup'),
    // elsewhere: views the home page; its signup fires on /signup (a modal), with no view of /signup.
    event('elsewhere', 0, 'pageview', '/'),
    event('elsewhere', 2, 'signup', '/signup'),
    // silent: only a custom event, its visit's first event: an entry of /signup, no exit, no visitor of it.
    event('silent', 0, 'signup', '/signup'),
  ]);
});
afterAll(() => server.close());

async function get(path: string): Promise<any> {
  const response = await server.request('GET', path);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

describe('a page counts the visitors who viewed it', () => {
  it.each([
    [
      'pages-v2',
      '',
      [
        { path: '/', visitors: 1, pageviews: 1, entries: 1, exits: 1 },
        { path: '/signup', visitors: 1, pageviews: 1, entries: 2, exits: 1 },
      ],
    ],
    [
      'pages-v2 with include_params',
      '&include_params=true',
      [
        { path: '/', visitors: 1, pageviews: 1, entries: 1, exits: 1 },
        { path: '/signup?ref=nav', visitors: 1, pageviews: 1, entries: 1, exits: 1 },
        { path: '/signup', visitors: 0, pageviews: 0, entries: 1, exits: 0 },
      ],
    ],
    ['pages-v2 filtered by path', '&path=/signup', [{ path: '/signup', visitors: 1, pageviews: 1, entries: 2, exits: 1 }]],
  ])('%s', async (_name, query, rows) => {
    const body = await get(`/v1/sites/${siteId}/reports/pages-v2?${range}${query}`);
    expect(body.data.rows).toEqual(rows);
  });

  it.each([
    ['one path filter (rollups)', '&path=/signup', 'rollups'],
    ['a path and a source filter (raw events)', '&path=/signup&source=direct', 'events'],
  ])('summary-v2 with %s: the visitors are those who viewed the path, its events all events on it', async (_name, query, computedFrom) => {
    // A one-day range's series is hourly by default (CONTRACT section 10): this case reads the day's point.
    const body = await get(`/v1/sites/${siteId}/reports/summary-v2?${range}${query}&interval=day`);
    expect(body.meta.computed_from).toBe(computedFrom);
    expect(body.data).toMatchObject({ visitors: 1, visits: 2, pageviews: 1, events: 4 });
    expect(body.data.series).toEqual([{ date: day, visitors: 1, visits: 2, pageviews: 1 }]);
  });

  it('sources-v2 with a path filter counts the same visitors (raw events)', async () => {
    const body = await get(`/v1/sites/${siteId}/reports/sources-v2?${range}&path=/signup`);
    expect(body.meta.computed_from).toBe('events');
    expect(body.data.rows).toEqual([{ source: 'direct', visitors: 1, visits: 2, pageviews: 1, bounce_rate: 0 }]);
  });

  it('without a path filter every visitor of the site counts, custom events included', async () => {
    const body = await get(`/v1/sites/${siteId}/reports/summary-v2?${range}`);
    expect(body.data).toMatchObject({ visitors: 3, visits: 3, pageviews: 2, events: 5 });
    expect(body.meta.measures.visitors).toMatch(/^distinct anon_ids with at least one counted event/);
  });

  it.each([
    ['pages-v2', `/v1/sites/${siteId}/reports/pages-v2?${range}`],
    ['summary-v2 filtered by path', `/v1/sites/${siteId}/reports/summary-v2?${range}&path=/signup`],
    ['sources-v2 filtered by path', `/v1/sites/${siteId}/reports/sources-v2?${range}&path=/signup`],
  ])('%s defines its visitors as the people with a pageview of the path in meta.measures', async (_name, path) => {
    expect((await get(path)).meta.measures.visitors).toMatch(/^distinct anon_ids with a pageview of the path in the range \(a custom event on it does not count/);
  });
});
