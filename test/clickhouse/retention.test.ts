// A site's retention period reaches ClickHouse as GDPR deletion does: the purge records a pending deletion with a
// time bound before the embedded rows go, every ClickHouse read leaves those rows out at once, the shipping loop
// deletes them there (a mutation) and forgets the record. Every report, event list and warning then equals the
// SQLite-only server's answer for the same events and the same purge, before and after the mutation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse } from '../../src/clickhouse/client.ts';
import { allPendingDeletions, pendingDeletionsOf, recordRetentionDeletion } from '../../src/clickhouse/deletions.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { sql } from '../../src/clickhouse/sql-literal.ts';
import { createClickHouseEventReads } from '../../src/read-model/clickhouse/event-reads.ts';
import { createClickHouseReportReads } from '../../src/read-model/clickhouse/report-reads.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { reportUrls } from '../gdpr/_reports.ts';
import { keepWholeLog, startClickHouse, until, type ClickHouseTestServer } from './_server.ts';

// Today is 2026-03-20: with 10 days, 2026-03-10 is the first day kept.
const now = '2026-03-20T12:00:00.000Z';
const cutoff = '2026-03-10T00:00:00.000Z';
const justBefore = '2026-03-09T23:59:59.999Z';
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

let counter = 0;
function event(site: string, anon: string, ts: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  const source = ['google.com', 'bing.com', 'news.example'][counter % 3];
  return {
    id: `00000000-0000-4000-e000-${String(counter).padStart(12, '0')}`,
    site_id: site,
    anon_id: anon,
    ts,
    type: 'pageview',
    url: `https://shop.example/p${counter % 4}?utm_source=${source}&utm_campaign=c${counter % 2}`,
    context: { user_agent: chrome },
    ...extra,
  };
}

/** Visitors over 2026-03-01..19: visits, purchases, internal traffic, logins, and a visit across the cutoff. */
function population(site: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (let day = 1; day <= 19; day++) {
    const date = `2026-03-${String(day).padStart(2, '0')}`;
    for (let visitor = 0; visitor < 3; visitor++) {
      const anon = `v-${(day + visitor) % 5}`;
      events.push(event(site, anon, `${date}T0${visitor + 1}:00:00Z`, visitor === 0 ? { user_id: `user-${anon}` } : {}));
      events.push(event(site, anon, `${date}T0${visitor + 1}:05:00Z`, { url: 'https://shop.example/pricing' }));
      if (visitor === 1) events.push(event(site, anon, `${date}T0${visitor + 1}:09:00Z`, { type: 'purchase', revenue: { amount: '9.99', currency: 'EUR' } }));
    }
    events.push(event(site, 'staff', `${date}T10:00:00Z`, { internal: true }));
  }
  events.push(event(site, 'edge', justBefore), event(site, 'edge', cutoff));
  return events;
}

// Over purged days, across the cut, from the first kept day, and after it (answered by ClickHouse).
const ranges: [string, string][] = [['2026-03-01', '2026-03-09'], ['2026-03-05', '2026-03-15'], ['2026-03-10', '2026-03-19'], ['2026-03-11', '2026-03-19']];
const urls = [
  ...ranges.flatMap(([from, to]) => reportUrls('rr-a', from, to)),
  ...ranges.map(([from, to]) => `/v1/sites/rr-a/events/list-v2?from=${from}&to=${to}&limit=200`),
  ...ranges.map(([from, to]) => `/v1/sites/rr-a/reports/summary-v2?from=${from}&to=${to}&source=google.com&path=/pricing`),
];

/** Every answer: legacy bodies whole; V2 data, computed_from and warnings (retention's says which days lost raw events). */
async function answersOf(server: TestServer): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const url of urls) {
    const response = await server.request('GET', url);
    expect(response.status, `${url}: ${response.text}`).toBe(200);
    answers[url] = url.includes('-v2') ? { computed_from: response.body.meta.computed_from, warnings: response.body.meta.warnings, data: response.body.data } : response.body;
  }
  return answers;
}

async function send(server: TestServer, events: Record<string, unknown>[]): Promise<void> {
  for (let offset = 0; offset < events.length; offset += 100) {
    const response = await server.request('POST', '/s2s/events', { token: events[0]!.site_id as string, body: events.slice(offset, offset + 100) });
    expect(response.status, response.text).toBe(202);
  }
}

describe('retention reaches ClickHouse', () => {
  let clickhouseServer: ClickHouseTestServer;
  let sqliteOnly: TestServer;
  let withClickHouse: TestServer;

  beforeAll(async () => {
    clickhouseServer = await startClickHouse();
    [sqliteOnly, withClickHouse] = await Promise.all([
      startTestServer({ clock: manualClock(now), retentionPurge: { firstAfterMs: 3_600_000 } }),
      startTestServer({
        clock: manualClock(now),
        retentionPurge: { firstAfterMs: 3_600_000 },
        env: { CLICKHOUSE_URL: clickhouseServer.url, CLICKHOUSE_DATABASE: 'retention', LOG_RETAIN_DAYS: keepWholeLog },
        clickhouseShipping: { intervalMs: 200, backoffMs: 50, maxBackoffMs: 400 },
      }),
    ]);
    // The same events (same ids and fields) to both.
    const [siteA, siteB] = [population('rr-a'), population('rr-b')];
    for (const server of [sqliteOnly, withClickHouse]) {
      await seedWorkspace(server, 'rr', { sites: ['rr-a', 'rr-b'] });
      await send(server, siteA);
      await send(server, siteB);
      await server.projected();
    }
  }, 120_000);
  afterAll(async () => {
    await Promise.all([sqliteOnly?.close(), withClickHouse?.close()]);
    await clickhouseServer?.close();
  });

  it('a pending retention deletion leaves the purged days out of ClickHouse\'s reads before anything is deleted there', async () => {
    // A harness of its own: nothing carries the deletion out, so only the reads' exclusion can hide the rows.
    const local = await startTestServer({ clock: manualClock(now) });
    try {
      await seedWorkspace(local, 'pend', { sites: ['rr-p'] });
      const localClickHouse = createClickHouse({ url: clickhouseServer.url, database: 'retention_pending', timeoutMs: 10_000 });
      await applyClickHouseSchema(localClickHouse);
      await send(local, population('rr-p'));
      await local.projected();
      await createShipper({ db: local.db, clickhouse: localClickHouse }).shipAll();
      const options = { clickhouse: localClickHouse, waitForShipping: async () => true, deletionsOf: (siteIds: readonly string[]) => pendingDeletionsOf(local.db, siteIds) };
      const reports = createClickHouseReportReads(options);
      const events = createClickHouseEventReads({ ...options, tail: local.app.readModel });
      const question = { scope: { siteIds: ['rr-p'], workspaceId: 'x' }, range: { fromDay: dayOf(Date.parse('2026-03-09')), toDay: dayOf(Date.parse('2026-03-10')) }, filters: {}, withInternal: true };
      const before = await reports.summary({ ...question, visitors: true });
      // Each day 7 pageviews (6 of visitors, 1 internal) and the edge's one on either side of the cutoff.
      expect(before.total.pageviews).toBe(2 * 7 + 2);
      recordRetentionDeletion(local.db, 'rr-p', Date.parse(cutoff), Date.parse(now));
      // 2026-03-09 is gone (with the edge's last millisecond), 2026-03-10 counts whole (with the edge's first).
      const after = await reports.summary({ ...question, visitors: true });
      expect(after.total.pageviews).toBe(7 + 1);
      expect(after.days.map((day) => day.pageviews)).toEqual([0, 7 + 1]);
      const listed = await events.listEvents({ ...question, limit: 100 });
      expect(listed.events.every((listedEvent) => listedEvent.tsMs >= Date.parse(cutoff))).toBe(true);
      expect(listed.events).toHaveLength(8 + 1);
      // ClickHouse still holds the rows: the answers left them out.
      const [held] = await localClickHouse.query<{ n: number }>(sql`SELECT count() AS n FROM events WHERE ts < ${Date.parse(cutoff)}`);
      expect(held!.n).toBe(9 * 8 + 1);
    } finally {
      await local.close();
    }
  });

  it('every answer equals the SQLite-only answer after the purge, at once and once ClickHouse deleted the rows', async () => {
    expect(await answersOf(withClickHouse)).toEqual(await answersOf(sqliteOnly));
    for (const server of [sqliteOnly, withClickHouse]) {
      const set = await server.request('PATCH', '/workspaces/rr/sites/rr-a', { body: { retention_days: 10 } });
      expect(set.status, set.text).toBe(200);
      const purged = await server.app.retention.runNow();
      expect(purged).toEqual([{ site_id: 'rr-a', kept_from: '2026-03-10', events: 9 * 8 + 1, visits: expect.any(Number), dlq: 0 }]);
    }
    const expected = await answersOf(sqliteOnly);
    expect(JSON.stringify(expected)).toContain('before 2026-03-10 were deleted by the site');
    expect(await answersOf(withClickHouse)).toEqual(expected);
    const clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'retention', timeoutMs: 10_000 });
    await until('ClickHouse holds none of the purged rows and the record is gone', async () => {
      const [left] = await clickhouse.query<{ n: number }>(sql`SELECT count() AS n FROM events WHERE site_id = 'rr-a' AND ts < ${Date.parse(cutoff)}`);
      return left!.n === 0 && allPendingDeletions(withClickHouse.db).length === 0 ? true : undefined;
    });
    // The other site and the kept days are untouched there.
    const [kept] = await clickhouse.query<{ a: number; b: number }>(
      sql`SELECT countIf(site_id = 'rr-a') AS a, countIf(site_id = 'rr-b') AS b FROM events FINAL`,
    );
    expect(kept).toEqual({ a: 10 * 8 + 1, b: 19 * 8 + 2 });
    expect(await answersOf(withClickHouse)).toEqual(expected);
  }, 300_000);
});
