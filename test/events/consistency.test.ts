// The events endpoints apply the common parameters as the V2 reports do (docs/events.md): over a mixed stream of
// events (bots, internal traffic, several visitors, sources and devices, two sites), overview-v2's total equals
// summary-v2's events and list-v2 lists exactly that many, for every range, filter and scope tried.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { googlebot, iphone, send, wireEvent } from './_helpers.ts';

const clock = manualClock('2026-03-20T12:00:00.000Z');
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'acme', { sites: ['a', 'b'] });
});
afterAll(() => server.close());

/** A small deterministic generator, so a failure names a reproducible case. */
function generator(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % below;
  };
}

it('overview-v2 total = summary-v2 events = list-v2 rows, for every range, filter and scope', async () => {
  const pick = generator(7);
  const agents = [googlebot, iphone, undefined, undefined];
  const referrers = [null, 'https://www.google.com/', 'https://news.example/x'];
  const start = Date.parse('2026-03-10T22:00:00.000Z');
  const bySite: Record<string, Record<string, unknown>[]> = { a: [], b: [] };
  for (let index = 0; index < 400; index++) {
    const site = pick(2) ? 'a' : 'b';
    const agent = agents[pick(4)];
    bySite[site]!.push(
      wireEvent(site, {
        anon_id: `u${pick(6)}`,
        ts: new Date(start + pick(3 * 24 * 60) * 60_000).toISOString(),
        type: ['pageview', 'pageview', 'signup', 'click'][pick(4)],
        url: `https://s.example/${['a', 'b', 'c'][pick(3)]}`,
        referrer: referrers[pick(3)],
        ...(agent ? { context: { user_agent: agent } } : {}),
        ...(pick(5) === 0 ? { internal: true } : {}),
      }),
    );
  }
  for (const site of ['a', 'b']) await send(server, site, bySite[site]!);
  const filters = ['', '&source=google.com', '&source=direct', '&device=mobile', '&path=/a', '&path=/a,/b&source=news.example', '&internal=include', '&scope=all-sites&device=desktop', '&browser=Chrome&internal=include'];
  for (const filter of filters) {
    for (const range of ['from=2026-03-10&to=2026-03-13', 'from=2026-03-11&to=2026-03-11', 'from=2026-03-12&to=2026-03-13']) {
      const query = `${range}${filter}`;
      const overview = await server.request('GET', `/sites/a/events/overview-v2?${query}`);
      const summary = await server.request('GET', `/sites/a/reports/summary-v2?${query}`);
      const list = await server.request('GET', `/sites/a/events/list-v2?${query}&limit=200`);
      expect(overview.body.data.total, query).toBe(summary.body.data.events);
      expect(list.body.data.events.length, query).toBe(Math.min(200, overview.body.data.total));
    }
  }
});
