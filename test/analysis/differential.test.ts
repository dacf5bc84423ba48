// Differential test: random streams of events (several devices per user bound by logins, two sites, internal
// traffic, events at the same millisecond and exactly a window apart) go through the real collector; every funnel
// (random steps, repeats and path prefixes, windows, date modes, scope, device filter, internal traffic) must count
// what the naive exhaustive search over the raw events counts (naive-funnel.ts), and the explanation of its first
// transition must split the same people.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { chrome, funnelOk, funnelPath, iphone, postEvents } from './_funnel-helpers.ts';
import { type NaiveEvent, naiveFunnel, type NaiveFunnelQuery } from './naive-funnel.ts';

const dayMs = 86_400_000;
// 2026-03-09T23:30Z: events come in one-hour bursts across midnight on three days, around ranges of 2026-03-10..11.
const origin = Date.parse('2026-03-09T23:30:00.000Z');
const types = ['pageview', 'pageview', 'signup', 'purchase', 'click'];
const paths = ['/', '/a', '/b', '/b/c'];
const users = [null, null, null, 'u1', 'u2'];

const eventArbitrary = fc.record({
  site: fc.integer({ min: 0, max: 1 }),
  anon: fc.integer({ min: 0, max: 3 }),
  // On a 10-minute grid (so windows of whole 10 minutes fall exactly on events), sometimes plus one second; in
  // bursts of an hour across each of three midnights, so people do several things within a window.
  day: fc.integer({ min: 0, max: 2 }),
  slot: fc.integer({ min: 0, max: 6 }),
  extraSecond: fc.integer({ min: 0, max: 5 }).map((value) => value === 0),
  type: fc.constantFrom(...types),
  path: fc.constantFrom(...paths),
  user: fc.constantFrom(...users),
  mobile: fc.boolean(),
  internal: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
});

const stepArbitrary = fc.record({ type: fc.constantFrom('pageview', 'signup', 'purchase', 'click'), path: fc.constantFrom(undefined, undefined, undefined, '/b*', '/a') });
const queryArbitrary = fc.record({
  steps: fc.array(stepArbitrary, { minLength: 2, maxLength: 4 }),
  windowTens: fc.integer({ min: 1, max: 6 }),
  unit: fc.constantFrom('minutes', 'hours'),
  dateMode: fc.constantFrom('first_step' as const, 'all_steps' as const),
  allSites: fc.boolean(),
  from: fc.constantFrom('2026-03-10', '2026-03-11'),
  days: fc.integer({ min: 1, max: 2 }),
  internal: fc.boolean(),
  device: fc.constantFrom(undefined, 'desktop' as const, 'mobile' as const),
});

let server: TestServer;
let run = 0;
/** How many compared funnels had someone at step 2 (and 3): the generator must reach deep enough to test anything. */
const reached = { second: 0, third: 0, compared: 0 };
beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') });
});
afterAll(() => server.close());

it('counts every funnel exactly as the naive search over the raw events', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(eventArbitrary, { minLength: 30, maxLength: 90 }), fc.array(queryArbitrary, { minLength: 3, maxLength: 3 }), async (generated, queries) => {
      run++;
      const slug = `fdiff-${run}`;
      const sites = [`fd${run}-a`, `fd${run}-b`];
      await seedWorkspace(server, slug, { sites });
      // Ingest order: site a's events in one request, then site b's (postEvents posts per site in first-seen order).
      const ordered = [...generated.filter((event) => event.site === 0), ...generated.filter((event) => event.site === 1)];
      const events: NaiveEvent[] = ordered.map((event, order) => ({
        order,
        site: event.site,
        anon: `p${event.anon}`,
        // One device belongs to one user at most: the user is a function of the anon_id (some never log in).
        user: event.user === null ? null : event.anon % 2 === 0 ? 'u1' : event.anon % 3 === 0 ? 'u2' : null,
        ts: origin + event.day * dayMs + event.slot * 600_000 + (event.extraSecond ? 1000 : 0),
        type: event.type,
        path: event.path,
        device: event.mobile ? 'mobile' : 'desktop',
        internal: event.internal,
      }));
      const bySiteFirst = [...events].sort((a, b) => a.site - b.site || a.order - b.order);
      await postEvents(
        server,
        bySiteFirst.map((event) => ({
          site: sites[event.site]!,
          anon: event.anon,
          ts: event.ts,
          type: event.type,
          path: event.path,
          agent: event.device === 'mobile' ? iphone : chrome,
          internal: event.internal,
          ...(event.user ? { user: event.user } : {}),
        })),
      );
      await server.projected();
      for (const generatedQuery of queries) {
        const windowValue = generatedQuery.unit === 'minutes' ? generatedQuery.windowTens * 10 : generatedQuery.windowTens * 4;
        const fromMs = Date.parse(`${generatedQuery.from}T00:00:00.000Z`);
        const toEndMs = fromMs + generatedQuery.days * dayMs;
        const to = new Date(toEndMs - dayMs).toISOString().slice(0, 10);
        const body = {
          ...(generatedQuery.allSites ? { scope: 'all-sites' } : { site_id: sites[0] }),
          from: generatedQuery.from,
          to,
          steps: generatedQuery.steps.map((step) => (step.path ? step : { type: step.type })),
          window: { value: windowValue, unit: generatedQuery.unit },
          date_mode: generatedQuery.dateMode,
          internal: generatedQuery.internal ? 'include' : 'exclude',
          ...(generatedQuery.device ? { device: [generatedQuery.device] } : {}),
        };
        const naiveQuery: NaiveFunnelQuery = {
          site: generatedQuery.allSites ? null : 0,
          fromMs,
          toEndMs,
          steps: body.steps,
          windowMs: windowValue * (generatedQuery.unit === 'minutes' ? 60_000 : 3_600_000),
          dateMode: generatedQuery.dateMode,
          withInternal: generatedQuery.internal,
          device: generatedQuery.device,
        };
        const expected = naiveFunnel(events, naiveQuery);
        reached.compared++;
        if (expected[1]! > 0) reached.second++;
        if ((expected[2] ?? 0) > 0) reached.third++;
        const answer = await funnelOk(server, slug, body);
        expect(answer.data.steps.map((step: { count: number }) => step.count), JSON.stringify(body)).toEqual(expected);
        const explanation = await server.request('POST', funnelPath(slug, 'explanation'), {
          body: { query: body, transition: { from_step: 1, to_step: 2 }, execution_id: answer.data.execution_id },
        });
        expect(explanation.status, explanation.text).toBe(200);
        expect(explanation.body.data.converted).toBe(expected[1]);
        expect(explanation.body.data.dropped).toBe(expected[0]! - expected[1]!);
      }
    }),
    { numRuns: Number(process.env.DIFFERENTIAL_RUNS ?? 60), endOnFailure: true },
  );
  // About a quarter of them do (47 of 180 in trial runs); a tenth is a floor no healthy generator misses.
  expect(reached.second, JSON.stringify(reached)).toBeGreaterThan(reached.compared / 10);
}, 120_000);
