// The tracker's engagement events in the reports (CONTRACT section 10): pages-v2 rows gain the medians of their
// pages' engagement events (scroll_depth, time_on_page_s), absent where a page has none; the events are never
// pageviews, and the legacy events report never lists them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';

const clock = manualClock('2026-04-03T12:00:00.000Z');
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const site = 'engaged';
const day = '2026-04-01';
const range = `from=${day}&to=${day}`;
let server: TestServer;

function event(anon: string, minute: number, type: string, page: string, props?: Record<string, unknown>): Record<string, unknown> {
  return {
    id: crypto.randomUUID(),
    site_id: site,
    anon_id: anon,
    ts: new Date(Date.parse(`${day}T10:00:00.000Z`) + minute * 60_000).toISOString(),
    type,
    url: `https://blog.example${page}`,
    context: { user_agent: chrome },
    ...(props ? { props } : {}),
  };
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'acme', { sites: [site] });
  // /post: 3 readers, depths 20, 80, 100 and 12.4 s, 60 s, 90 s: medians 80 % and 60.0 s. /about: 2 readers,
  // 10 % and 30 %, 1.25 s and 2.5 s: medians 20 % and 1.875 s, shown as 1.9. / has no engagement event.
  await send(server, site, [
    event('a', 0, 'pageview', '/post'),
    event('a', 1, 'engagement', '/post', { scroll_depth: 20, engaged_ms: 12_400 }),
    event('b', 0, 'pageview', '/post'),
    event('b', 1, 'engagement', '/post', { scroll_depth: 80, engaged_ms: 60_000 }),
    event('c', 0, 'pageview', '/post'),
    event('c', 1, 'engagement', '/post', { scroll_depth: 100, engaged_ms: 90_000 }),
    event('a', 2, 'pageview', '/about'),
    event('a', 3, 'engagement', '/about', { scroll_depth: 10, engaged_ms: 1_250 }),
    event('b', 2, 'pageview', '/about'),
    event('b', 3, 'engagement', '/about', { scroll_depth: 30, engaged_ms: 2_500 }),
    event('d', 0, 'pageview', '/'),
  ]);
});
afterAll(() => server.close());

describe('engagement in the reports', () => {
  it('gives pages-v2 rows their median scroll depth and time on page, and leaves them out where none was sent', async () => {
    const response = await server.request('GET', `/v1/sites/${site}/reports/pages-v2?${range}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.rows).toEqual([
      // a and b go on to /about: only c leaves from /post.
      { path: '/post', visitors: 3, pageviews: 3, entries: 3, exits: 1, scroll_depth: 80, time_on_page_s: 60 },
      { path: '/about', visitors: 2, pageviews: 2, entries: 0, exits: 2, scroll_depth: 20, time_on_page_s: 1.9 },
      { path: '/', visitors: 1, pageviews: 1, entries: 1, exits: 1 },
    ]);
    expect(response.body.meta.measures.time_on_page_s).toMatch(/^median engaged_ms/);
  });

  it('keeps them with a filter: only the engagement events of the selected visits count', async () => {
    const response = await server.request('GET', `/v1/sites/${site}/reports/pages-v2?${range}&path=/about`);
    expect(response.body.data.rows).toEqual([{ path: '/about', visitors: 2, pageviews: 2, entries: 0, exits: 2, scroll_depth: 20, time_on_page_s: 1.9 }]);
  });

  it('never counts them as pageviews, nor lists them in the legacy events report', async () => {
    const summary = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?${range}`);
    expect(summary.body.data.pageviews).toBe(6);
    const legacy = await server.request('GET', `/sites/${site}/events?${range}`);
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.body.by_name).toEqual([{ name: 'pageview', count: 6 }]);
    const pageviews = await server.request('GET', `/sites/${site}/pageviews?${range}`);
    expect(pageviews.body.count).toBe(6);
  });
});
