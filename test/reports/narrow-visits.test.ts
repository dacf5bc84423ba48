// The raw pass's narrow read (docs/reports.md, "Narrow visits"; src/read-model/sqlite/narrow-visits.ts): with a filter
// no rollup carries, or goals, the dashboard's rankings, series, comparison and goals read the projector's narrow rows
// (visit_sequences, schema 32) instead of cutting the range's visits out of the event log. Every answer must equal the
// raw computation on the same data: each view of the table is asked twice, once as it runs (the narrow rows answer)
// and once with schema 32's fill marked pending, which puts the raw pass back on the event log. The data holds what
// the rows must keep exactly: visits without a pageview, purchases with revenue in two currencies, custom events on
// paths, campaigns, a visit across midnight, one across the range's first day, one longer than a day that starts
// more than a day before the range (the site's longest visit widens the read), internal traffic and a running today.
// Then the upgrade: a database as schema 31 left it (rows without events, none for visits without a pageview) gets
// the fill at its next start, resumable after a crash halfway, with the same answers before, during and after.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.ts';
import { parseSchemaSections } from '../../src/db/schema.ts';
import { readProjectorPosition } from '../../src/projector/queries/projector-state.ts';
import { backfillVisitSequences } from '../../src/projector/visit-sequences.ts';
import { narrowVisitsAnswer } from '../../src/read-model/sqlite/narrow-visits.ts';
import { narrowVisitsSql } from '../../src/read-model/sqlite/queries/narrow-visit-rows.ts';
import { engagementEventsSql } from '../../src/read-model/sqlite/queries/engagement-events.ts';
import { toEventFilterParams } from '../../src/read-model/sqlite/queries/event-filter.ts';
import { VisitorSet } from '../../src/read-model/sqlite/raw-grouped.ts';
import { databasePath } from '../../src/server.ts';
import { makeTempDir, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { repositoryRoot } from '../cli/cli-helpers.ts';
import { chrome, iphone, send } from '../events/_helpers.ts';

// Now is inside the last day, so a range ending today is a running one (compared as far as it has run).
const clock = manualClock('2026-03-10T12:30:00.000Z');
const siteId = 'narrow';
const ips = ['8.8.8.8', '81.2.69.142', '2.16.0.1', '1.1.1.1'];
const hour = 3_600_000;

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
  { query: '?utm_source=newsletter&utm_medium=email&utm_campaign=march' },
  { query: '?utm_source=Google&utm_medium=cpc' },
  { referrer: 'https://t.co/xyz' },
  {},
];

function event(anonId: string, ms: number, type: string, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: crypto.randomUUID(), site_id: siteId, anon_id: anonId, ts: new Date(ms).toISOString(), type, url: `https://narrow.example${path}`, context: { user_agent: chrome, ip: ips[0] }, ...extra };
}

function dataSet(): Record<string, unknown>[] {
  const random = generator(29);
  const events: Record<string, unknown>[] = [];
  for (let person = 0; person < 70; person++) {
    const agent = random() < 0.4 ? iphone : chrome;
    const context = { user_agent: agent, ip: ips[person % ips.length] };
    const internal = person % 9 === 0 ? { internal: true } : {};
    const visits = 1 + Math.floor(random() * 3);
    for (let visit = 0; visit < visits; visit++) {
      const origin = origins[Math.floor(random() * origins.length)]!;
      const start = Date.parse('2026-03-03T00:00:00Z') + Math.floor(random() * 8) * 24 * hour + Math.floor(random() * 24) * hour + Math.floor(random() * 3000) * 1000;
      const kind = random();
      if (kind < 0.12) {
        // A visit without a pageview: custom events only, one of them on a path.
        events.push(event(`p${person}`, start, 'download', '/files/a.pdf', { context, ...internal }), event(`p${person}`, start + 90_000, 'signup', '/signup', { context, ...internal }));
        continue;
      }
      const views = 1 + Math.floor(random() * 4);
      for (let view = 0; view < views; view++) {
        const path = ['/', '/pricing', '/docs/intro', '/docs/api', '/signup'][Math.floor(random() * 5)]!;
        const first = view === 0 ? { ...(origin.referrer ? { referrer: origin.referrer } : {}) } : {};
        events.push(event(`p${person}`, start + view * 70_000, 'pageview', `${path}${view === 0 ? (origin.query ?? '') : ''}`, { context, ...first, ...internal }));
      }
      if (kind > 0.7) {
        const currency = kind > 0.85 ? 'USD' : 'EUR';
        const plan = kind > 0.8 ? 'pro' : 'free';
        events.push(event(`p${person}`, start + views * 70_000, 'purchase', '/checkout', { context, ...internal, props: { plan }, revenue: { amount: `${10 + person}.25`, currency } }));
      }
    }
  }
  // Across midnight, in the middle of the range.
  events.push(event('midnight', Date.parse('2026-03-05T23:50:00Z'), 'pageview', '/'), event('midnight', Date.parse('2026-03-06T00:10:00Z'), 'pageview', '/pricing'));
  // Across the range's first day (2026-03-04): starts the day before.
  events.push(event('edge', Date.parse('2026-03-03T23:45:00Z'), 'pageview', '/docs/intro'), event('edge', Date.parse('2026-03-04T00:20:00Z'), 'purchase', '/checkout', { revenue: { amount: '5.00', currency: 'EUR' } }));
  // Longer than a day, starting 28 hours before 2026-03-04: a pageview every 20 minutes for 30 hours.
  for (let at = Date.parse('2026-03-02T20:00:00Z'); at <= Date.parse('2026-03-04T02:00:00Z'); at += 20 * 60_000) events.push(event('marathon', at, 'pageview', at % (2 * hour) === 0 ? '/pricing' : '/docs/api'));
  return events.filter((one) => Date.parse(one.ts as string) < clock.now());
}

let server: TestServer;
const goals: Record<string, string> = {};

async function createGoal(target: TestServer, name: string, body: Record<string, unknown>): Promise<string> {
  const response = await target.request('POST', `/v1/sites/${siteId}/goals`, { body: { name, ...body } });
  expect(response.status, response.text).toBe(201);
  return response.body.id as string;
}

async function seed(target: TestServer): Promise<void> {
  await seedWorkspace(target, 'narrow', { sites: [siteId] });
  goals.pricing = await createGoal(target, 'Pricing', { kind: 'pageview', path: '/pricing' });
  goals.docs = await createGoal(target, 'Docs', { kind: 'pageview', path: '/docs/*' });
  goals.purchase = await createGoal(target, 'Purchase', { kind: 'event', event_type: 'purchase' });
  goals.pro = await createGoal(target, 'Pro plan', { kind: 'event', event_type: 'purchase', props: { plan: 'pro' } });
  await send(target, siteId, dataSet());
  await target.projected();
}

async function get(target: TestServer, path: string): Promise<any> {
  const response = await target.request('GET', path);
  expect(response.status, `${path}: ${response.text}`).toBe(200);
  return response.body;
}

/** Puts the raw pass on the event log (schema 32's fill pending) for `read`, then back on the narrow rows. */
async function fromRawEvents<T>(db: Db, read: () => Promise<T>): Promise<T> {
  db.prepare('INSERT INTO visit_sequences_events_backfill (id, after_visit, last_visit) VALUES (1, 0, 0)').run();
  try {
    expect(narrowVisitsAnswer(db, readProjectorPosition(db))).toBe(false);
    return await read();
  } finally {
    db.prepare('DELETE FROM visit_sequences_events_backfill').run();
  }
}

/** The views compared: each needs the raw pass (a filter no rollup carries, a goal, a rolling window, hours). */
const views: [string, Record<string, string>][] = [
  ['two visit filters', { from: '2026-03-04', to: '2026-03-10', source: 'direct', device: 'desktop' }],
  ['hours of one day, two filters', { from: '2026-03-06', to: '2026-03-06', interval: 'hour', device: 'desktop', browser: 'Chrome' }],
  ['a running period compared with the same part of the previous one', { from: '2026-03-07', to: '2026-03-10', compare: 'previous', device: 'mobile', os: 'iOS' }],
  ['today in hours, compared', { from: '2026-03-10', to: '2026-03-10', interval: 'hour', compare: 'previous', source: 'direct', browser: 'Chrome' }],
  ['a visit filter the site never saw', { from: '2026-03-04', to: '2026-03-10', country: 'ZZ', device: 'mobile' }],
  ['one value never seen among seen ones', { from: '2026-03-04', to: '2026-03-10', country: 'ZZ,US', device: 'desktop' }],
  ['internal traffic included', { from: '2026-03-04', to: '2026-03-10', internal: 'include', device: 'desktop', browser: 'Chrome' }],
  ['a pageview goal as the filter', { from: '2026-03-04', to: '2026-03-10', goal: 'pricing' }],
  ['a wildcard goal and a device', { from: '2026-03-01', to: '2026-03-10', goal: 'docs', device: 'desktop' }],
  ['a goal with props (the event log answers both)', { from: '2026-03-04', to: '2026-03-10', goal: 'pro' }],
  ['a path and a browser', { from: '2026-03-04', to: '2026-03-10', path: '/checkout', browser: 'Chrome' }],
  ['a custom event\'s path', { from: '2026-03-03', to: '2026-03-10', path: '/files/a.pdf', device: 'desktop' }],
  ['the last 24 hours', { from: '2026-03-09', to: '2026-03-10', since: '2026-03-09T13:00:00Z', compare: 'previous' }],
  ['the range\'s first day, the long visit in it', { from: '2026-03-04', to: '2026-03-04', interval: 'hour', source: 'direct', device: 'desktop' }],
  ['weeks with a goal and a comparison', { from: '2026-03-01', to: '2026-03-10', interval: 'week', goal: 'purchase', compare: 'previous' }],
  ['no filter (the goals panel reads the pass)', { from: '2026-03-01', to: '2026-03-10' }],
];

const withGoalIds = (asked: Record<string, string>) => Object.fromEntries(Object.entries(asked).map(([name, value]) => [name, name === 'goal' ? goals[value]! : value]));
const dashboard = (target: TestServer, asked: Record<string, string>) => get(target, `/v1/sites/${siteId}/reports/dashboard-v2?${new URLSearchParams({ ...withGoalIds(asked), grouped: 'true' })}`);

beforeAll(async () => {
  server = await startTestServer({ clock });
  await seed(server);
}, 180_000);
afterAll(() => server?.close());

describe('the narrow rows answer the raw pass exactly as the event log does', () => {
  it.each(views)('%s', async (_label, asked) => {
    expect(narrowVisitsAnswer(server.db, readProjectorPosition(server.db))).toBe(true);
    const narrow = await dashboard(server, asked);
    const raw = await fromRawEvents(server.db, () => dashboard(server, asked));
    expect(narrow).toEqual(raw);
    // The view counts something: equal empty answers would prove nothing (the unseen value's is empty by design).
    if (asked.country !== 'ZZ') expect(narrow.data.summary.data.visits + narrow.data.goals.data.rows.reduce((sum: number, row: { conversions: number }) => sum + row.conversions, 0)).toBeGreaterThan(0);
  });

  it('keeps every visit, with or without a pageview, and the longest visit that reaches back over a day', () => {
    const rows = server.db.prepare("SELECT count(*) AS visits, sum(pages = x'') AS without_pageview FROM visit_sequences WHERE site_id = ?").get(siteId) as { visits: number; without_pageview: number };
    expect(rows.visits).toBe(server.db.prepare('SELECT count(*) FROM sessions WHERE site_id = ?').pluck().get(siteId));
    expect(rows.without_pageview).toBeGreaterThan(0);
    expect(server.db.prepare('SELECT span_ms FROM visit_sequences_longest WHERE site_id = ?').pluck().get(siteId)).toBe(30 * hour);
  });

  it('is not read for a paged report\'s earlier position, a page grouping or a goal with props', async () => {
    // Views whose answers the event log gives (the narrow rows lack the query string, the props): equal either way.
    for (const asked of [{ from: '2026-03-04', to: '2026-03-10', device: 'mobile', os: 'iOS', include_params: 'true' }]) {
      const path = `/v1/sites/${siteId}/reports/pages-v2?${new URLSearchParams(asked)}`;
      expect(await get(server, path)).toEqual(await fromRawEvents(server.db, () => get(server, path)));
    }
    expect(narrowVisitsAnswer(server.db, readProjectorPosition(server.db) - 1)).toBe(false);
  });
});

/** The SQL of the schema section that holds `text` (found by what it creates, whatever number the section gets). */
function sectionCreating(text: string): string {
  return parseSchemaSections(readFileSync(join(repositoryRoot, 'schema.sql'), 'utf8')).find((candidate) => candidate.sql.includes(text))!.sql;
}

describe('the upgrade to schema 32 fills the rows\' events from the visits already projected', () => {
  it('fills them at the next start, resumes after a crash halfway, and answers as before', { timeout: 240_000 }, async () => {
    const dataDir = makeTempDir();
    const before = await startTestServer({ clock, dataDir });
    await seed(before);
    const asked = views.map(([, view]) => view);
    // The answers the event log gives: the narrow rows must give them after the fill.
    const answers = [];
    for (const view of asked) answers.push(await fromRawEvents(before.db, () => dashboard(before, view)));
    const visits = before.db.prepare('SELECT count(*) FROM sessions').pluck().get() as number;
    await before.close();

    // The database as schema 31 left it: rows without events or campaign, none for a visit without a pageview.
    const upgraded = openDatabase(databasePath(dataDir));
    upgraded.exec(`DELETE FROM visit_sequences WHERE pages = x''; UPDATE visit_sequences SET events = NULL, campaign_id = NULL;
      CREATE TABLE old_rows AS SELECT site_id, start_ts, visitor, pages, source_id, device_id, browser_id, os_id, country_id, region_id, city_id FROM visit_sequences;
      DROP TABLE visit_sequences; DROP TABLE visit_sequences_longest; DROP TABLE visit_sequences_events_backfill;
      CREATE TABLE visit_sequences (site_id TEXT NOT NULL, start_ts INTEGER NOT NULL, visitor INTEGER NOT NULL, pages BLOB NOT NULL,
        source_id INTEGER, device_id INTEGER, browser_id INTEGER, os_id INTEGER, country_id INTEGER, region_id INTEGER, city_id INTEGER,
        PRIMARY KEY (site_id, start_ts, visitor)) WITHOUT ROWID;
      INSERT INTO visit_sequences SELECT * FROM old_rows; DROP TABLE old_rows;`);
    upgraded.exec(sectionCreating('CREATE TABLE visit_sequences_events_backfill ('));
    expect(upgraded.prepare('SELECT after_visit, last_visit FROM visit_sequences_events_backfill').get()).toEqual({ after_visit: 0, last_visit: visits });
    expect(narrowVisitsAnswer(upgraded, readProjectorPosition(upgraded))).toBe(false);
    // A crash after two chunks of 20 visits: the rest waits for the next start, the raw pass reads the events.
    expect(backfillVisitSequences(upgraded, { chunk: 20, maxChunks: 2 })).toBe(40);
    expect(upgraded.prepare('SELECT after_visit FROM visit_sequences_events_backfill').pluck().get()).toBe(40);
    expect(narrowVisitsAnswer(upgraded, readProjectorPosition(upgraded))).toBe(false);
    upgraded.close();

    const after = await startTestServer({ clock, dataDir });
    try {
      expect(after.db.prepare('SELECT count(*) FROM visit_sequences_events_backfill').pluck().get()).toBe(0);
      expect(after.db.prepare('SELECT count(*) FROM visit_sequences WHERE events IS NULL').pluck().get()).toBe(0);
      expect(after.db.prepare('SELECT count(*) FROM visit_sequences').pluck().get()).toBe(visits);
      expect(narrowVisitsAnswer(after.db, readProjectorPosition(after.db))).toBe(true);
      for (const [index, view] of asked.entries()) expect(await dashboard(after, view), JSON.stringify(view)).toEqual(answers[index]);
    } finally {
      await after.close();
    }
  });
});

describe('the reads of a filtered dashboard go through their indexes', () => {
  const plan = (sql: string, params: Record<string, unknown>) => server.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params).map((row: any) => row.detail as string);

  it('reads a range of narrow rows by the primary key, a visit filter an IN on its id column', () => {
    const read = { withInternal: false, filters: [{ column: 'source_id' as const, ids: [1] }, { column: 'device_id' as const, ids: [2] }] };
    const steps = plan(narrowVisitsSql(read), { site_id: siteId, start_ms: 0, end_ms: 1, filter0: '[1]', filter1: '[2]' });
    expect(steps.some((step) => /^SEARCH visit_sequences USING PRIMARY KEY \(site_id=\? AND start_ts>\? AND start_ts<\?\)/.test(step)), steps.join(' | ')).toBe(true);
  });

  it('reads the pages\' engagement events through the index of the other event types, never a scan of the range', () => {
    const params = { site_ids: JSON.stringify([siteId]), start_ms: 0, end_ms: 1, paths: '["/"]', only_seqs: null, ...toEventFilterParams({ device: ['mobile'] }, false) };
    const steps = plan(engagementEventsSql, params);
    expect(steps.some((step) => /^SEARCH e USING INDEX events_by_site_type_ts \(site_id=\? AND type=\? AND ts>\? AND ts<\?\)/.test(step)), steps.join(' | ')).toBe(true);
    expect(steps.some((step) => /events_by_site_ts|SCAN e\b/.test(step)), steps.join(' | ')).toBe(false);
  });
});

describe('VisitorSet counts each visitor once, however it holds them', () => {
  it.each([
    ['numbers under the bitmap\'s threshold (1,024 kept in the Set)', Array.from({ length: 1_024 }, (_, index) => index * 7)],
    ['the first number past it (1,025: the bitmap takes them)', Array.from({ length: 1_025 }, (_, index) => index * 7)],
    ['numbers past it, each added three times, one far beyond the first bitmap', [...Array.from({ length: 3_000 }, (_, index) => index), 5_000_000].flatMap((visitor) => [visitor, visitor, visitor])],
    ['anon_ids and numbers mixed, a negative number', [...Array.from({ length: 2_000 }, (_, index) => index), ...Array.from({ length: 500 }, (_, index) => `a${index}`), -1, -1, 0, 'a0']],
  ] as [string, (string | number)[]][])('%s', (_label, visitors) => {
    const set = new VisitorSet();
    for (const visitor of visitors) set.add(visitor);
    expect(set.size).toBe(new Set(visitors).size);
  });
});
