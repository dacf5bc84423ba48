// The retention period and its purge over HTTP: kept forever by default; the purge deletes the raw events (and their
// visitor index rows and ended visits) of days past the period and keeps every rollup-computed report number of
// those days; the period's edge to the millisecond; events the projector has not counted wait; a rebuild of
// everything derived keeps the purged days' rollups; the setting validated at its edges, scopes and isolation.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../admin/_helpers.ts';
import { contractBundle } from '../plan/fixtures.ts';
import { reconcileProjection } from '../../src/projector/reconcile.ts';
import { makeTempDir, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { fromRollups, projectAll, readReports, reportUrls } from '../gdpr/_reports.ts';

// Today is 2026-03-20: with 10 days, 2026-03-10 is the first day kept.
const clock = manualClock('2026-03-20T12:00:00.000Z');
const cutoff = '2026-03-10T00:00:00.000Z';
const justBefore = '2026-03-09T23:59:59.999Z';

let counter = 0;
function event(site: string, anon: string, ts: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  const source = ['google.com', 'bing.com', 'news.example'][counter % 3];
  return { id: crypto.randomUUID(), site_id: site, anon_id: anon, ts, type: 'pageview', url: `https://shop.example/p${counter % 4}?utm_source=${source}&utm_campaign=c${counter % 2}`, ...extra };
}

/** Visitors over 2026-03-01..19 on rt-a and rt-b: visits, purchases, internal traffic, a bot, a visit across the cutoff. */
function population(site: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (let day = 1; day <= 19; day++) {
    const date = `2026-03-${String(day).padStart(2, '0')}`;
    for (let visitor = 0; visitor < 3; visitor++) {
      const anon = `v-${(day + visitor) % 5}`;
      events.push(event(site, anon, `${date}T0${visitor + 1}:00:00Z`, { user_id: visitor === 0 ? `user-${anon}` : undefined }));
      events.push(event(site, anon, `${date}T0${visitor + 1}:05:00Z`, { url: 'https://shop.example/pricing' }));
      if (visitor === 1) events.push(event(site, anon, `${date}T0${visitor + 1}:09:00Z`, { type: 'purchase', url: 'https://shop.example/pricing?utm_source=google.com&utm_campaign=c1', revenue: { amount: '9.99', currency: 'EUR' } }));
    }
    events.push(event(site, 'staff', `${date}T10:00:00Z`, { internal: true }));
    events.push(event(site, 'crawler', `${date}T11:00:00Z`, { context: { user_agent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' } }));
  }
  // Across the cutoff: the last millisecond of the last purged day and the first of the first kept day.
  events.push(event(site, 'edge', justBefore), event(site, 'edge', cutoff));
  return events;
}

async function send(server: TestServer, events: Record<string, unknown>[]): Promise<void> {
  for (const site of new Set(events.map((item) => item.site_id as string))) {
    const mine = events.filter((item) => item.site_id === site);
    for (let offset = 0; offset < mine.length; offset += 100) {
      const response = await server.request('POST', '/s2s/events', { token: site, body: mine.slice(offset, offset + 100) });
      expect(response.status, response.text).toBe(202);
    }
  }
}

const count = (server: TestServer, sql: string, ...params: unknown[]) => (server.db.prepare(sql).get(...params) as { n: number }).n;
const eventsBefore = (server: TestServer, site: string, iso: string) => count(server, 'SELECT count(*) AS n FROM events WHERE site_id = ? AND ts < ?', site, Date.parse(iso));

/** Reports over the purged days, across the cutoff and over the month; the raw fallback (two filters) apart. */
const ranges: [string, string][] = [['2026-03-01', '2026-03-09'], ['2026-03-05', '2026-03-15'], ['2026-03-01', '2026-03-31'], ['2026-03-09', '2026-03-09']];
const allUrls = ranges.flatMap(([from, to]) => reportUrls('rt-a', from, to));
/** Set by the first purge test: the reports computed from rollups (those computed from events have nothing left). */
let rollupUrls: string[] = [];
const twoFilters = (from: string, to: string) => `/v1/sites/rt-a/reports/summary-v2?from=${from}&to=${to}&source=google.com&path=/pricing`;

describe('retention', () => {
  let server: TestServer;
  let adminKey: string;
  let foreignKey: string;

  beforeAll(async () => {
    server = await startTestServer({ clock, projector: 'manual', projectionWaitMs: 20, retentionPurge: { firstAfterMs: 3_600_000 } });
    adminKey = (await seedWorkspace(server, 'ret', { sites: ['rt-a', 'rt-b'], scopes: ['admin'] })).key!;
    foreignKey = (await seedWorkspace(server, 'ret-x', { sites: ['rt-x'], scopes: ['admin'] })).key!;
    await send(server, [...population('rt-a'), ...population('rt-b')]);
    projectAll(server);
  });
  afterAll(() => server.close());

  it('keeps events forever by default: the setting reads null and a purge deletes nothing', async () => {
    const site = await server.request('GET', '/workspaces/ret/sites/rt-a');
    expect(site.body).toEqual({ id: 'rt-a', name: 'Site rt-a', created_at: expect.any(String), cookieless: true, retention_days: null });
    const total = count(server, 'SELECT count(*) AS n FROM events');
    expect(await server.app.retention.runNow()).toEqual([]);
    expect(count(server, 'SELECT count(*) AS n FROM events')).toBe(total);
  });

  it('deletes the raw events of days past the period and keeps every report number of those days', async () => {
    const all = await readReports(server, allUrls);
    rollupUrls = fromRollups(all);
    expect(rollupUrls.length).toBeGreaterThan(60);
    const before = await readReports(server, rollupUrls);
    const listed = await server.request('GET', '/v1/sites/rt-a/events/list-v2?from=2026-03-01&to=2026-03-09&limit=200');
    expect(listed.body.data.events.length).toBeGreaterThan(0);
    const rtB = count(server, "SELECT count(*) AS n FROM events WHERE site_id = 'rt-b'");
    const index = count(server, 'SELECT count(*) AS n FROM visitor_events');
    const purgedEvents = eventsBefore(server, 'rt-a', cutoff);
    expect(purgedEvents).toBe(82);

    const set = await server.request('PATCH', '/workspaces/ret/sites/rt-a', { body: { retention_days: 10 } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.retention_days).toBe(10);
    const purged = await server.app.retention.runNow();
    expect(purged).toEqual([{ site_id: 'rt-a', kept_from: '2026-03-10', events: purgedEvents, visits: expect.any(Number), dlq: 0 }]);

    // The raw rows are gone: events, their visitor index rows, the visits that ended before the cutoff.
    expect(eventsBefore(server, 'rt-a', cutoff)).toBe(0);
    expect(count(server, 'SELECT count(*) AS n FROM visitor_events')).toBe(index - purgedEvents);
    expect(count(server, 'SELECT count(*) AS n FROM event_visitors')).toBe(index - purgedEvents);
    expect(count(server, 'SELECT count(*) AS n FROM event_visitors WHERE seq NOT IN (SELECT seq FROM events)')).toBe(0);
    expect(count(server, "SELECT count(*) AS n FROM sessions WHERE site_id = 'rt-a' AND end_ts < ?", Date.parse(cutoff))).toBe(0);
    // The edge: the first millisecond of the first kept day stays, the last of the day before goes.
    expect(count(server, "SELECT count(*) AS n FROM events WHERE site_id = 'rt-a' AND anon_id = 'edge'")).toBe(1);
    expect(count(server, "SELECT min(ts) AS n FROM events WHERE site_id = 'rt-a'")).toBe(Date.parse(cutoff));
    // Another site of the workspace keeps everything.
    expect(count(server, "SELECT count(*) AS n FROM events WHERE site_id = 'rt-b'")).toBe(rtB);

    expect(await readReports(server, rollupUrls)).toEqual(before);
    const emptied = await server.request('GET', '/v1/sites/rt-a/events/list-v2?from=2026-03-01&to=2026-03-09&limit=200');
    expect(emptied.body.data.events).toEqual([]);
    const warning = expect.stringContaining('before 2026-03-10 were deleted by the site');
    expect(emptied.body.meta.warnings).toContainEqual(warning);
    // What only raw events answer (two filters at once) has nothing left to read over the purged days.
    const raw = await server.request('GET', twoFilters('2026-03-01', '2026-03-09'));
    expect(raw.body.meta.computed_from).toBe('events');
    expect(raw.body.data.pageviews).toBe(0);
    expect(raw.body.meta.warnings).toContainEqual(warning);
    // A rollup answer over the same days counts them, and says nothing of it; neither does a raw one after the cutoff.
    const rollup = await server.request('GET', '/v1/sites/rt-a/reports/summary-v2?from=2026-03-01&to=2026-03-09');
    expect(rollup.body.data.pageviews).toBeGreaterThan(0);
    expect(rollup.body.meta.warnings).not.toContainEqual(warning);
    expect((await server.request('GET', twoFilters('2026-03-10', '2026-03-12'))).body.meta.warnings).not.toContainEqual(warning);
  });

  it('audits the setting and the purge with its counts', async () => {
    const audit = await server.request('GET', '/workspaces/ret/audit');
    const actions = audit.body.entries.map((entry: { action: string }) => entry.action);
    expect(actions.slice(0, 2)).toEqual(['retention.purge', 'site.update']);
    expect(audit.body.entries[0]).toMatchObject({ actor_kind: 'system', target: 'rt-a', metadata: { retention_days: 10, kept_from: '2026-03-10', events: expect.any(Number) } });
    expect(audit.body.entries[1]).toMatchObject({ actor_kind: 'admin', target: 'rt-a', metadata: { retention_days: { from: null, to: 10 } } });
  });

  it('a day later purges one more day; a second pass the same day deletes nothing and writes no audit row', async () => {
    const before = await readReports(server, rollupUrls);
    expect(await server.app.retention.runNow()).toEqual([]);
    clock.advance(86_400_000);
    const [purge] = await server.app.retention.runNow();
    expect(purge).toMatchObject({ site_id: 'rt-a', kept_from: '2026-03-11' });
    expect(eventsBefore(server, 'rt-a', '2026-03-11T00:00:00Z')).toBe(0);
    expect(await readReports(server, rollupUrls)).toEqual(before);
  });

  it('leaves an old event the projector has not counted yet; purges it once counted, and the report counts it', async () => {
    const late = event('rt-a', 'late', '2026-03-05T08:00:00Z');
    await send(server, [late]);
    expect(await server.app.retention.runNow()).toEqual([]);
    expect(count(server, "SELECT count(*) AS n FROM events WHERE site_id = 'rt-a' AND anon_id = 'late'")).toBe(1);
    const day = '/v1/sites/rt-a/reports/summary-v2?from=2026-03-05&to=2026-03-05';
    const [beforeLate] = Object.values(await readReports(server, [day])) as { data: { pageviews: number } }[];
    projectAll(server);
    expect((await server.app.retention.runNow())[0]).toMatchObject({ events: 1 });
    const [afterLate] = Object.values(await readReports(server, [day])) as { data: { pageviews: number } }[];
    expect(afterLate!.data.pageviews).toBe(beforeLate!.data.pageviews + 1);
  });

  it('a rebuild of everything derived from the log keeps the rollups of purged days', async () => {
    const before = await readReports(server, rollupUrls);
    // What a power failure can leave: a position past the log's end.
    server.db.prepare("UPDATE projector_state SET position = position + 1000").run();
    expect(reconcileProjection(server.db, clock.now())).toBe(true);
    projectAll(server);
    expect(await readReports(server, rollupUrls)).toEqual(before);
  });

  it('setting back to forever stops the purge', async () => {
    const set = await server.request('PATCH', '/v1/workspaces/ret/sites/rt-a', { body: { retention_days: null } });
    expect(set.body.retention_days).toBeNull();
    clock.advance(5 * 86_400_000);
    expect(await server.app.retention.runNow()).toEqual([]);
  });

  it.each([
    [0, 400],
    [1, 200],
    [3650, 200],
    [3651, 400],
    [1.5, 400],
    ['10', 400],
    [-1, 400],
    [null, 200],
  ])('retention_days %j answers %i', async (days, status) => {
    const response = await server.request('PATCH', '/workspaces/ret/sites/rt-b', { body: { retention_days: days } });
    expect(response.status, response.text).toBe(status);
    if (status === 400) expect(response.body).toMatchObject({ error: 'invalid_payload', details: [{ path: '/retention_days' }] });
    else expect(response.body.retention_days).toBe(days);
  });

  it('refuses an empty or unknown body, and takes the period in the create body', async () => {
    expect((await server.request('PATCH', '/workspaces/ret/sites/rt-b', { body: {} })).status).toBe(400);
    expect((await server.request('PATCH', '/workspaces/ret/sites/rt-b', { body: { id: 'other' } })).status).toBe(400);
    const created = await server.request('POST', '/workspaces/ret/sites', { body: { id: 'rt-c', name: 'C', retention_days: 30 } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ id: 'rt-c', name: 'C', created_at: expect.any(String), cookieless: true, retention_days: 30 });
    expect((await server.request('GET', '/workspaces/ret/sites/rt-c')).body.retention_days).toBe(30);
    expect((await server.request('POST', '/workspaces/ret/sites', { body: { id: 'rt-d', name: 'D', retention_days: 0 } })).status).toBe(400);
  });

  it('is the operator’s: an admin key 403, a foreign or missing site the same 404', async () => {
    expect((await server.request('PATCH', '/workspaces/ret/sites/rt-b', { token: adminKey, body: { retention_days: 5 } })).status).toBe(403);
    expect((await server.request('PATCH', '/workspaces/ret/sites/rt-b', { token: null, body: { retention_days: 5 } })).status).toBe(401);
    const foreign = await server.request('PATCH', '/workspaces/ret/sites/rt-x', { body: { retention_days: 5 } });
    const missing = await server.request('PATCH', '/workspaces/ret/sites/nope', { body: { retention_days: 5 } });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    expect((await server.request('GET', '/workspaces/ret-x/sites/rt-a')).status).toBe(404);
    expect((await server.request('PATCH', '/workspaces/ret-x/sites/rt-x', { token: foreignKey, body: { retention_days: 5 } })).status).toBe(403);
  });
});

describe('retention of quarantined events', () => {
  it('deletes DLQ rows received before the first kept day, keeps the newer ones', async () => {
    const plan = join(makeTempDir('sightline-plan-'), 'plan.json');
    writeFileSync(plan, JSON.stringify(contractBundle()));
    const dlqClock = manualClock('2026-03-01T12:00:00.000Z');
    const server = await startTestServer({ clock: dlqClock, projector: 'manual', retentionPurge: { firstAfterMs: 3_600_000 }, env: { SCHEMA_BUNDLE_PATH: plan, SCHEMA_MODE: 'quarantine' } });
    try {
      await seedWorkspace(server, 'dlq-ret', { sites: ['rt-q'] });
      const bad = (ts: string) => ({ id: crypto.randomUUID(), site_id: 'rt-q', anon_id: 'q', ts, type: 'signup', props: { plan: 'gold' } });
      await send(server, [bad('2026-03-01T11:00:00Z')]);
      dlqClock.advance(10 * 86_400_000);
      await send(server, [bad('2026-03-11T11:00:00Z')]);
      await server.request('PATCH', '/workspaces/dlq-ret/sites/rt-q', { body: { retention_days: 5 } });
      // 2026-03-11: the first kept day is 2026-03-06; the row received on 2026-03-01 goes.
      expect(await server.app.retention.runNow()).toEqual([{ site_id: 'rt-q', kept_from: '2026-03-06', events: 0, visits: 0, dlq: 1 }]);
      const rows = (await server.request('GET', '/sites/rt-q/dlq')).body.events;
      expect(rows.map((row: { received_at: string }) => row.received_at.slice(0, 10))).toEqual(['2026-03-11']);
    } finally {
      await server.close();
    }
  });
});
