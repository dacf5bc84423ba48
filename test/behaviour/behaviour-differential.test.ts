// Differential test of the behaviour reports: random event streams made of what journeys and retention get wrong
// first (people on two devices merged through user_id, several events at the same instant, one-page visits, visits
// that run across midnight at ISO week ends, month ends and the year end, bots, internal traffic, duplicates and
// out-of-order arrival, two sites, visit filter values that differ from event to event) go through the real collector
// and projector; journeys-v2 (every anchor kind, 2-6 steps, with and without visit filters), page-flow-v2 (every
// page) and retention-v2 (both periods, by first visit and started on each of four goals)
// must equal the naive computation over the raw events (test/reports/naive-reports.ts, ./naive-goal-retention.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { type NaiveFilters, type NaiveQuery, naiveJourneys, naivePageFlow, naiveRetention } from '../reports/naive-reports.ts';
import { type NaiveGoal, naiveGoalRetention } from './naive-goal-retention.ts';

const clock = manualClock('2026-04-10T12:00:00.000Z');
// Evenings before a boundary: the year end (Wednesday), a month end on a Saturday (31 January, 28 February), ISO week
// ends (Sundays 1 and 8 February, 1 and 15 March), a month end on a Tuesday (31 March). Events fall in slots 13
// minutes apart from 22:30 to 02:50 the next day, walks 2 minutes apart within a slot: visits of one page and of
// many, across midnight.
const days = ['2025-12-31', '2026-01-31', '2026-02-01', '2026-02-08', '2026-02-28', '2026-03-01', '2026-03-15', '2026-03-31'].map((text) => Date.parse(`${text}T22:30:00.000Z`));
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
// A visit's filter values are its first event's: each event draws its own, so an earlier or merging event changes them.
const referrers = [null, 'https://www.google.com/search', 'https://news.example/x'];
const ips = ['8.8.8.8', '81.2.69.142', '2.16.0.1'];
const pages = ['/', '/a', '/b', '/c/x', '/c/y'];
const goals: NaiveGoal[] = [
  { kind: 'pageview', path: '/a' },
  { kind: 'pageview', path: '/c/*' },
  { kind: 'event', event_type: 'signup', props: { plan: 'pro' } },
  { kind: 'event', event_type: 'purchase' },
];

const eventArbitrary = fc.record({
  site: fc.constantFrom(0, 0, 0, 1),
  // anon-0 and anon-1 are user u0's two devices, anon-2 and anon-3 user u1's; anon-4 and anon-5 never sign in.
  anon: fc.integer({ min: 0, max: 5 }),
  signedIn: fc.integer({ min: 0, max: 3 }).map((value) => value === 0),
  day: fc.integer({ min: 0, max: days.length - 1 }),
  // Slot 20 is 22:30 + 260 minutes; equal slots of one visitor are events at the same instant.
  slot: fc.integer({ min: 0, max: 20 }),
  type: fc.constantFrom('pageview', 'pageview', 'pageview', 'pageview', 'signup', 'purchase'),
  plan: fc.constantFrom('pro', 'free'),
  page: fc.integer({ min: 0, max: pages.length - 1 }),
  bot: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
  phone: fc.integer({ min: 0, max: 2 }).map((value) => value === 0),
  referrer: fc.integer({ min: 0, max: referrers.length - 1 }),
  ip: fc.constantFrom(...ips),
  internal: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
  repeat: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
  // A walk: pageviews of the same visitor 2, 4, … minutes later (pages revisited, repeats collapsed or not).
  walk: fc.array(fc.integer({ min: 0, max: pages.length - 1 }), { maxLength: 5 }),
});
type GeneratedEvent = typeof eventArbitrary extends fc.Arbitrary<infer T> ? T : never;

const ranges: [string, string][] = [
  ['2026-01-01', '2026-03-31'],
  ['2026-02-01', '2026-02-28'],
  ['2026-02-02', '2026-03-01'],
  ['2026-03-01', '2026-03-01'],
  ['2026-01-31', '2026-02-01'],
  ['2025-12-31', '2026-01-01'],
];
const filterChoices: NaiveFilters[] = [
  {},
  {},
  { path: ['/a'] },
  { path: ['/b', '/c/x'] },
  { source: ['google.com'] },
  { source: ['news.example'] },
  { device: ['mobile'] },
  { country: ['US', 'GB'] },
  { browser: ['Chrome'], os: ['Windows'] },
  { source: ['direct'], path: ['/a', '/'] },
];

let server: TestServer;
let run = 0;
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server.close());

/** Each event and its walk's pageviews. */
function withWalks(events: GeneratedEvent[]): { event: GeneratedEvent; minute: number }[] {
  return events.flatMap((event) => [
    { event, minute: event.slot * 13 },
    ...event.walk.map((page, index) => ({ event: { ...event, type: 'pageview' as const, page, repeat: false }, minute: event.slot * 13 + (index + 1) * 2 })),
  ]);
}

function toWire({ event, minute }: { event: GeneratedEvent; minute: number }, siteId: string): Record<string, unknown> {
  const ts = days[event.day]! + minute * 60_000;
  return {
    id: crypto.randomUUID(),
    site_id: siteId,
    anon_id: `anon-${event.anon}`,
    ts: new Date(ts).toISOString(),
    type: event.type,
    url: `https://s.example${pages[event.page]}`,
    ...(event.type === 'signup' ? { props: { plan: event.plan } } : {}),
    ...(event.signedIn && event.anon < 4 ? { user_id: `u${event.anon >> 1}` } : {}),
    ...(event.internal ? { internal: true } : {}),
    referrer: referrers[event.referrer],
    context: { user_agent: event.bot ? googlebot : event.phone ? iphone : chrome, ip: event.ip },
  };
}

async function send(siteIds: string[], events: GeneratedEvent[], order: number[]): Promise<void> {
  const walked = withWalks(events);
  const wire = walked.map((item) => toWire(item, siteIds[item.event.site]!));
  // Duplicates (some events twice) in a shuffled order: late and out-of-order arrival.
  const all = [...wire, ...wire.filter((_event, index) => walked[index]!.event.repeat)];
  const shuffled = all.map((event, index) => ({ event, key: order[index % order.length]! * 1000 + index })).sort((a, b) => a.key - b.key);
  for (const siteId of siteIds) {
    const mine = shuffled.map((item) => item.event).filter((event) => event.site_id === siteId);
    for (let offset = 0; offset < mine.length; offset += 25) {
      const response = await server.request('POST', '/s2s/events', { token: siteId, body: mine.slice(offset, offset + 25) });
      expect(response.status, response.text).toBe(202);
    }
  }
}

async function get(path: string): Promise<any> {
  const response = await server.request('GET', path);
  expect(response.status, `${path}: ${response.text}`).toBe(200);
  expect(response.body.meta.completeness, path).toEqual({ complete: true });
  return response.body;
}

interface Case {
  from: string;
  to: string;
  filters: NaiveFilters;
  withInternal: boolean;
  allSites: boolean;
}

function queryString(testCase: Case, extra: Record<string, string>, filters = testCase.filters): string {
  const parts: Record<string, string> = { from: testCase.from, to: testCase.to, ...extra };
  for (const [name, values] of Object.entries(filters)) parts[name] = (values as string[]).join(',');
  if (testCase.withInternal) parts.internal = 'include';
  if (testCase.allSites) parts.scope = 'all-sites';
  return new URLSearchParams(parts).toString();
}

async function compare(siteIds: string[], goalIds: string[], testCase: Case): Promise<void> {
  const siteId = siteIds[0]!;
  const query: NaiveQuery = { siteIds: testCase.allSites ? siteIds : [siteId], from: testCase.from, to: testCase.to, filters: testCase.filters, withInternal: testCase.withInternal };
  const label = JSON.stringify(testCase);
  const reports = `/v1/sites/${siteId}/reports`;
  for (let steps = 2; steps <= 6; steps += 2) {
    for (const anchor of [{}, { start: '/a' }, { end: '/b' }, { start: '/c/y' }, { end: '/' }]) {
      const extra = { steps: String(steps), limit: '50', ...('start' in anchor ? { start_path: anchor.start } : {}), ...('end' in anchor ? { end_path: anchor.end } : {}) };
      const journeys = await get(`${reports}/journeys-v2?${queryString(testCase, extra)}`);
      expect(journeys.data.paths, `${label} ${JSON.stringify(extra)}`).toEqual(naiveJourneys(server.db, query, { ...anchor, steps, limit: 50 }));
    }
  }
  // page-flow-v2's path is its page, so no path filter there.
  const { path, ...visitFilters } = testCase.filters;
  for (const page of pages) {
    const flow = await get(`${reports}/page-flow-v2?${queryString(testCase, { path: page, limit: '50' }, visitFilters)}`);
    expect(flow.data, `${label} page flow of ${page}`).toEqual(naivePageFlow(server.db, { ...query, filters: visitFilters }, page, 50));
  }
  // Retention takes scope and internal traffic, not the visit filters.
  for (const period of ['week', 'month'] as const) {
    const retention = await get(`${reports}/retention-v2?${queryString(testCase, { period }, {})}`);
    expect(retention.data.cohorts, `${label} retention by ${period}`).toEqual(naiveRetention(server.db, query, period));
    for (const [index, goal] of goals.entries()) {
      const onGoal = await get(`${reports}/retention-v2?${queryString(testCase, { period, goal: goalIds[index]! }, {})}`);
      expect(onGoal.data.cohorts, `${label} retention by ${period} on ${JSON.stringify(goal)}`).toEqual(naiveGoalRetention(server.db, query, period, goal));
    }
  }
}

describe('journeys, page flow and retention equal a naive computation over the raw events', () => {
  it('for random streams of devices, ties, one-page visits and boundaries, ranges, scopes and internal traffic', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArbitrary, { minLength: 5, maxLength: 60, size: 'max' }),
        fc.array(fc.nat(), { minLength: 150, maxLength: 150 }),
        fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
        async (events, order, picks) => {
          run++;
          const siteIds = [`bd${run}a`, `bd${run}b`];
          await seedWorkspace(server, `bdiff-${run}`, { sites: siteIds });
          const goalIds: string[] = [];
          for (const [index, goal] of goals.entries()) {
            const response = await server.request('POST', `/v1/sites/${siteIds[0]}/goals`, { body: { name: `Goal ${index}`, ...goal } });
            expect(response.status, response.text).toBe(201);
            goalIds.push(response.body.id);
          }
          await send(siteIds, events, order);
          // Every answer below is complete: the projector has passed every event (a loaded machine could outlast the
          // reports' bounded wait for it).
          await server.projected();
          for (const [index, pick] of picks.entries()) {
            const [from, to] = ranges[(pick + index) % ranges.length]!;
            await compare(siteIds, goalIds, { from, to, filters: filterChoices[(pick >> 2) % filterChoices.length]!, withInternal: (pick & 1) === 1, allSites: (pick & 2) === 2 });
          }
        },
      ),
      { numRuns: Number(process.env.DIFFERENTIAL_RUNS ?? 15), endOnFailure: true },
    );
  }, 300_000);
});
