// Differential test: random event streams (duplicates, late and out-of-order events, bots, internal traffic, two
// sites, a GDPR deletion) go through the real collector; every report, for several ranges, filters, scopes and
// traffic choices, must equal the naive computation over the raw events (test/reports/naive-reports.ts). The
// projector runs in batches of random sizes at random points of the stream, and some batches are stopped mid-way
// (a throw inside the batch's transaction, as a crash would) and resumed from the saved position.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromMinorUnits } from '../../src/money/minor-units.ts';
import { inWriteTransaction } from '../../src/db/statements.ts';
import { forgetVisitor } from '../../src/projector/forget-visitor.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import {
  type NaiveFilters,
  type NaiveQuery,
  naiveCampaigns,
  naiveJourneys,
  naiveLegacyEvents,
  naiveLegacyPageviews,
  naiveLegacySessions,
  naivePageFlow,
  naivePages,
  naiveRetention,
  naiveSources,
  naiveSummary,
} from './naive-reports.ts';

const clock = manualClock('2026-03-20T12:00:00.000Z');
// Days at month ends and elsewhere; visits run across midnight (and so across months) at 22:30-01:30.
const days = ['2026-01-10', '2026-01-31', '2026-02-01', '2026-02-14', '2026-02-27', '2026-02-28', '2026-03-02'].map((day) => Date.parse(`${day}T22:30:00.000Z`));
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const pages = ['/', '/a', '/b', '/c?x=1', '/a?utm_source=news&utm_medium=email&utm_campaign=spring&y=2', '/b?gclid=1'];
const referrers = [null, 'https://www.google.com/search', 'https://news.example/x', 'https://s.example/self'];
const ips = ['8.8.8.8', '81.2.69.142', '2.16.0.1', '1.1.1.1'];
// signup, purchase and download carry the URL of a page the pageviews visit too: custom events on a page's path
// count as its events, never as its visitors (CONTRACT section 10); click has no URL.
const types = ['pageview', 'pageview', 'pageview', 'pageview', 'signup', 'purchase', 'download', 'click'];

const eventArbitrary = fc.record({
  site: fc.integer({ min: 0, max: 1 }),
  anon: fc.integer({ min: 0, max: 4 }),
  day: fc.integer({ min: 0, max: days.length - 1 }),
  slot: fc.integer({ min: 0, max: 25 }),
  type: fc.constantFrom(...types),
  page: fc.integer({ min: 0, max: pages.length - 1 }),
  referrer: fc.integer({ min: 0, max: referrers.length - 1 }),
  agent: fc.constantFrom(chrome, chrome, iphone, googlebot),
  ip: fc.constantFrom(...ips),
  internal: fc.integer({ min: 0, max: 9 }).map((value) => value < 2),
  currency: fc.constantFrom('EUR', 'USD', 'JPY'),
  repeat: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
  // A custom event of the same visitor on the same page a minute later (signup right after viewing the form).
  follow: fc.option(fc.constantFrom('signup', 'download'), { freq: 4, nil: undefined }),
  // Now and then a user_id: a user on two devices (anon_ids) is one person of retention.
  user: fc.option(fc.constantFrom('u1', 'u2'), { freq: 3, nil: undefined }),
});
type GeneratedEvent = typeof eventArbitrary extends fc.Arbitrary<infer T> ? T : never;

const streamArbitrary = fc.record({
  events: fc.array(eventArbitrary, { minLength: 10, maxLength: 120, size: 'max' }),
  later: fc.array(eventArbitrary, { maxLength: 15, size: 'max' }),
  order: fc.array(fc.nat(), { minLength: 150, maxLength: 150 }),
  batch: fc.integer({ min: 1, max: 9 }),
  forget: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  // A projector batch of this many events after every n-th request (0: none; the projector's own timer and the
  // reads' wait still run it), stopped after `stopAfter` events (0: never) and rolled back, then run again.
  projection: fc.record({ every: fc.constantFrom(0, 1, 3), batch: fc.constantFrom(1, 7, 40, 5000), stopAfter: fc.constantFrom(0, 0, 1, 5) }),
  // After the first part of the stream, one more (possibly stopped) batch of this many events (0: none).
  batchAfterFirstPart: fc.constantFrom(0, 1, 30, 5000),
});

let server: TestServer;
let run = 0;
beforeAll(async () => {
  // Inline: the test also runs batches itself, between requests, on the same thread.
  server = await startTestServer({ clock, projector: 'inline' });
});
afterAll(() => server.close());

function toWire(event: GeneratedEvent, siteId: string): Record<string, unknown> {
  const ts = days[event.day]! + event.slot * 7 * 60_000;
  const withUrl = event.type !== 'click';
  return {
    id: crypto.randomUUID(),
    site_id: siteId,
    anon_id: `anon-${event.anon}`,
    ts: new Date(ts).toISOString(),
    type: event.type,
    url: withUrl ? `https://s.example${pages[event.page]}` : null,
    referrer: referrers[event.referrer],
    ...(event.type === 'purchase' ? { revenue: { amount: event.currency === 'JPY' ? '1200' : '12.34', currency: event.currency } } : {}),
    ...(event.internal ? { internal: true } : {}),
    ...(event.user ? { user_id: event.user } : {}),
    context: { user_agent: event.agent, ip: event.ip },
  };
}

interface Projection {
  every: number;
  batch: number;
  stopAfter: number;
}

class StoppedMidBatch extends Error {}

/** One projector batch, stopped mid-way (rolled back) first when asked: the next one resumes from the saved position. */
function project(maxEvents: number, stopAfter: number): void {
  if (stopAfter > 0) {
    const before = server.app.projection.position();
    const stop = (projected: number) => {
      if (projected === stopAfter) throw new StoppedMidBatch();
    };
    try {
      server.app.projection.projectNow({ maxEvents, afterEvent: stop });
    } catch (error) {
      if (!(error instanceof StoppedMidBatch)) throw error;
    }
    expect(server.app.projection.position()).toBeGreaterThanOrEqual(before);
  }
  server.app.projection.projectNow({ maxEvents });
}

/** Each event and, after a pageview with `follow`, its custom event on the same page a minute later. */
function withFollowers(events: GeneratedEvent[]): GeneratedEvent[] {
  return events.flatMap((event) => (event.type === 'pageview' && event.follow && event.slot < 25 ? [event, { ...event, type: event.follow, slot: event.slot + 1 / 7, follow: undefined }] : [event]));
}

async function send(siteIds: string[], generated: GeneratedEvent[], order: number[], batch: number, projection: Projection): Promise<void> {
  const events = withFollowers(generated);
  const wire = events.map((event) => toWire(event, siteIds[event.site]!));
  // Duplicates: some events are sent twice; the order is shuffled (late and out-of-order arrival).
  const all = [...wire, ...wire.filter((_event, index) => events[index]!.repeat)];
  let requests = 0;
  const shuffled = all.map((event, index) => ({ event, key: order[index % order.length]! * 1000 + index })).sort((a, b) => a.key - b.key);
  for (const siteId of siteIds) {
    const mine = shuffled.map((item) => item.event).filter((event) => event.site_id === siteId);
    for (let offset = 0; offset < mine.length; offset += batch) {
      // A repeat inside one batch is a duplicate too; a batch never holds an id twice only by chance.
      const response = await server.request('POST', '/s2s/events', { token: siteId, body: mine.slice(offset, offset + batch) });
      expect(response.status, response.text).toBe(202);
      requests++;
      if (projection.every > 0 && requests % projection.every === 0) project(projection.batch, projection.stopAfter);
    }
  }
}

function forget(siteId: string, anonId: string): void {
  // What a GDPR deletion does (docs/architecture.md): take the visitor out of everything projected, then delete its
  // events, in one transaction (whatever the projector has not reached yet is deleted before it does).
  inWriteTransaction(
    server.db,
    () => {
      forgetVisitor(server.db, siteId, anonId);
      server.db.prepare('DELETE FROM events WHERE site_id = ? AND anon_id = ?').run(siteId, anonId);
    },
    { eventLog: true },
  );
}

interface Case {
  from: string;
  to: string;
  filters: NaiveFilters;
  withInternal: boolean;
  allSites: boolean;
}

const filterChoices: NaiveFilters[] = [
  {},
  { source: ['google.com'] },
  { source: ['direct'] },
  { country: ['US', 'GB', 'AU'] },
  { device: ['mobile'] },
  { path: ['/a'] },
  { path: ['/a', '/b', '/'] },
  { source: ['google.com'], path: ['/a', '/b'] },
  { browser: ['Chrome'], os: ['Windows'] },
];
const ranges: [string, string][] = [
  ['2026-01-01', '2026-03-20'],
  ['2026-02-01', '2026-02-28'],
  ['2026-01-20', '2026-03-01'],
  ['2026-02-01', '2026-02-01'],
  ['2026-01-11', '2026-02-27'],
];

function queryString(testCase: Case, extra: Record<string, string> = {}): string {
  const parts: Record<string, string> = { from: testCase.from, to: testCase.to, ...extra };
  for (const [name, values] of Object.entries(testCase.filters)) parts[name] = (values as string[]).join(',');
  if (testCase.withInternal) parts.internal = 'include';
  if (testCase.allSites) parts.scope = 'all-sites';
  return new URLSearchParams(parts).toString();
}

async function get(path: string): Promise<any> {
  const response = await server.request('GET', path);
  expect(response.status, `${path}: ${response.text}`).toBe(200);
  return response.body;
}

async function allPages(siteId: string, testCase: Case, includeParams: boolean): Promise<unknown[]> {
  const rows: unknown[] = [];
  let cursor: string | null = null;
  do {
    const extra: Record<string, string> = { limit: '2', include_params: String(includeParams), ...(cursor ? { cursor } : {}) };
    const body = await get(`/v1/sites/${siteId}/reports/pages-v2?${queryString(testCase, extra)}`);
    rows.push(...body.data.rows);
    cursor = body.meta.cursor.next;
    expect(body.meta.truncated).toBe(cursor !== null);
  } while (cursor);
  return rows;
}

async function compareReports(siteIds: string[], testCase: Case): Promise<void> {
  const siteId = siteIds[0]!;
  const query: NaiveQuery = { siteIds: testCase.allSites ? siteIds : [siteId], from: testCase.from, to: testCase.to, filters: testCase.filters, withInternal: testCase.withInternal };
  const label = JSON.stringify(testCase);
  const summary = await get(`/v1/sites/${siteId}/reports/summary-v2?${queryString(testCase)}`);
  expect(summary.data, label).toEqual(naiveSummary(server.db, query));
  if (process.env.SHOW) console.log(label, JSON.stringify({ ...summary.data, series: undefined }), (await get(`/v1/sites/${siteId}/reports/sources-v2?${queryString(testCase)}`)).data.rows.length);
  // A one-day range's series is hourly, read from the event rows by design (CONTRACT section 10).
  expect(summary.meta.computed_from, label).toBe(testCase.from === testCase.to ? 'event_log' : Object.keys(testCase.filters).length > 1 ? 'events' : 'rollups');
  // dashboard-v2 reads its rankings, its series and its goals in one pass: its panels equal the naive ones too.
  const dashboard = await get(`/v1/sites/${siteId}/reports/dashboard-v2?${queryString(testCase, { limit: '200' })}`);
  expect(dashboard.data.summary.data, `${label} dashboard`).toEqual(naiveSummary(server.db, query));
  expect(dashboard.data.pages.data.rows, `${label} dashboard`).toEqual(naivePages(server.db, query).slice(0, 200));
  expect(dashboard.data.sources.data.rows, `${label} dashboard`).toEqual(naiveSources(server.db, query).slice(0, 200));
  expect(dashboard.data.campaigns.data.rows, `${label} dashboard`).toEqual(naiveCampaigns(server.db, query, fromMinorUnits).slice(0, 200));
  expect(await allPages(siteId, testCase, false), label).toEqual(naivePages(server.db, query));
  expect(await allPages(siteId, testCase, true), label).toEqual(naivePages(server.db, query, true));
  const sources = await get(`/v1/sites/${siteId}/reports/sources-v2?${queryString(testCase, { limit: '200' })}`);
  expect(sources.data.rows, label).toEqual(naiveSources(server.db, query));
  const campaigns = await get(`/v1/sites/${siteId}/reports/campaigns-v2?${queryString(testCase, { limit: '200' })}`);
  expect(campaigns.data.rows, label).toEqual(naiveCampaigns(server.db, query, fromMinorUnits));
  await compareBehaviour(siteIds, testCase);
}

const behaviourPaths = ['/', '/a', '/b', '/c'];

/** Journeys (every anchor kind, 2-6 steps), page flow and retention (both periods) against their naive versions. */
async function compareBehaviour(siteIds: string[], testCase: Case): Promise<void> {
  const siteId = siteIds[0]!;
  const query: NaiveQuery = { siteIds: testCase.allSites ? siteIds : [siteId], from: testCase.from, to: testCase.to, filters: testCase.filters, withInternal: testCase.withInternal };
  const label = JSON.stringify(testCase);
  // The case's choices pick the anchor, the steps and the path, so every combination comes up over the runs.
  const pick = testCase.from.charCodeAt(9) + testCase.to.charCodeAt(9) + Object.keys(testCase.filters).length;
  const anchorPath = behaviourPaths[pick % behaviourPaths.length]!;
  const steps = 2 + (pick % 5);
  for (const anchor of [{}, { start: anchorPath }, { end: anchorPath }]) {
    const extra = { steps: String(steps), limit: '50', ...('start' in anchor ? { start_path: anchor.start } : {}), ...('end' in anchor ? { end_path: anchor.end } : {}) };
    const journeys = await get(`/v1/sites/${siteId}/reports/journeys-v2?${queryString(testCase, extra)}`);
    expect(journeys.data.paths, `${label} ${JSON.stringify(extra)}`).toEqual(naiveJourneys(server.db, query, { ...anchor, steps, limit: 50 }));
  }
  // page-flow-v2's path is its page: no path filter there.
  const { path: _pathFilter, ...withoutPath } = testCase.filters;
  const flowCase = { ...testCase, filters: withoutPath };
  const flow = await get(`/v1/sites/${siteId}/reports/page-flow-v2?${queryString(flowCase, { path: anchorPath, limit: '50' })}`);
  expect(flow.data, `${label} page flow of ${anchorPath}`).toEqual(naivePageFlow(server.db, { ...query, filters: withoutPath }, anchorPath, 50));
  // Retention takes scope and internal traffic, not the visit filters.
  for (const period of ['week', 'month'] as const) {
    const retention = await get(`/v1/sites/${siteId}/reports/retention-v2?${queryString({ ...testCase, filters: {} }, { period })}`);
    expect(retention.data.cohorts, `${label} retention by ${period}`).toEqual(naiveRetention(server.db, query, period));
  }
}

describe('reports equal a naive computation over the raw events', () => {
  it('for random streams, ranges, filters, scopes and internal traffic', async () => {
    await fc.assert(
      fc.asyncProperty(streamArbitrary, fc.array(fc.nat(), { minLength: 4, maxLength: 4 }), async (stream, picks) => {
        run++;
        const siteIds = [`d${run}a`, `d${run}b`];
        await seedWorkspace(server, `diff-${run}`, { sites: siteIds });
        await send(siteIds, stream.events, stream.order, stream.batch, stream.projection);
        if (stream.batchAfterFirstPart > 0) project(stream.batchAfterFirstPart, stream.projection.stopAfter);
        if (stream.forget !== undefined) forget(siteIds[0]!, `anon-${stream.forget}`);
        await send(siteIds, stream.later, stream.order.slice(7), stream.batch, stream.projection);
        const legacyQuery: NaiveQuery = { siteIds: [siteIds[0]!], from: '2026-01-01', to: '2026-03-20' };
        const legacyRange = 'from=2026-01-01&to=2026-03-20';
        expect(await get(`/sites/${siteIds[0]}/pageviews?${legacyRange}`)).toEqual(naiveLegacyPageviews(server.db, legacyQuery));
        expect(await get(`/sites/${siteIds[0]}/events?${legacyRange}`)).toEqual(naiveLegacyEvents(server.db, legacyQuery));
        expect(await get(`/sites/${siteIds[0]}/sessions?${legacyRange}`)).toEqual(naiveLegacySessions(server.db, legacyQuery));
        for (const [index, pick] of picks.entries()) {
          const [from, to] = ranges[(pick + index) % ranges.length]!;
          await compareReports(siteIds, {
            from,
            to,
            filters: filterChoices[(pick >> 2) % filterChoices.length]!,
            withInternal: (pick & 1) === 1,
            allSites: (pick & 2) === 2,
          });
        }
        const [from, to] = ranges[picks[0]! % ranges.length]!;
        await compareReports(siteIds, { from, to, filters: filterChoices[picks[1]! % filterChoices.length]!, withInternal: true, allSites: (picks[2]! & 1) === 1 });
      }),
      {
        numRuns: Number(process.env.DIFFERENTIAL_RUNS ?? 30),
        endOnFailure: true,
        // A failure's report names its seed and path: DIFFERENTIAL_SEED=… DIFFERENTIAL_PATH=… replays exactly that case.
        ...(process.env.DIFFERENTIAL_SEED ? { seed: Number(process.env.DIFFERENTIAL_SEED), path: process.env.DIFFERENTIAL_PATH } : {}),
      },
    );
  }, 300_000);
});
