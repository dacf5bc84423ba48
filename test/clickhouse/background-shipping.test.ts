// The server with CLICKHOUSE_URL set, end to end: events POSTed to it reach a real clickhouse-server in the
// background, exactly once; with ClickHouse killed, ingest still answers 202 and /metrics shows the failures and the
// lag; after a restart the shipper catches up and every event is there once; app.close() stops the loop, also
// while ClickHouse is down. The loop runs on its worker thread, as in the server. Every wait polls for a state with a generous bound; no timing decides a test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { sql } from '../../src/clickhouse/sql-literal.ts';
import { rmSync } from 'node:fs';
import { makeTempDir, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { keepWholeLog, startClickHouse, until, type ClickHouseTestServer } from './_server.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const base = Date.parse('2026-03-02T08:00:00.000Z');
let counter = 0;
function events(siteId: string, count: number) {
  return Array.from({ length: count }, () => {
    counter++;
    return {
      id: `00000000-0000-4000-a000-${String(counter).padStart(12, '0')}`,
      site_id: siteId,
      anon_id: `v${counter % 13}`,
      ts: new Date(base + counter * 60_000).toISOString(),
      type: 'pageview',
      url: `https://shop.example/p${counter % 5}`,
      context: { user_agent: chrome },
    };
  });
}

describe('background shipping to ClickHouse (CLICKHOUSE_URL set)', () => {
  let clickhouseServer: ClickHouseTestServer;
  let server: TestServer;
  let clickhouse: ClickHouse;
  // Ours, not the test server's: the last test starts a second server on the same data.
  const dataDir = makeTempDir();

  beforeAll(async () => {
    clickhouseServer = await startClickHouse();
    server = await startTestServer({
      dataDir,
      clock: manualClock('2026-03-20T12:00:00.000Z'),
      env: { CLICKHOUSE_URL: clickhouseServer.url, CLICKHOUSE_DATABASE: 'background', LOG_RETAIN_DAYS: keepWholeLog },
      // Short waits keep the test quick; none of them decides an assertion.
      clickhouseShipping: { intervalMs: 200, backoffMs: 50, maxBackoffMs: 400, batchSize: 70 },
    });
    await seedWorkspace(server, 'bg', { sites: ['bg-site'] });
    clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'background', timeoutMs: 10_000 });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await clickhouseServer?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function post(count: number) {
    const response = await server.request('POST', '/s2s/events', { token: 'bg-site', body: events('bg-site', count) });
    expect(response.status).toBe(202);
  }

  async function metric(name: string): Promise<number | undefined> {
    const response = await server.request('GET', '/metrics');
    const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(response.text);
    return match ? Number(match[1]) : undefined;
  }

  const storedSeqs = () => server.db.prepare('SELECT seq FROM events ORDER BY seq').pluck().all() as number[];
  // Without FINAL: a row ClickHouse holds twice would show twice.
  const shippedSeqs = async () => (await clickhouse.query<{ seq: number }>(sql`SELECT seq FROM events ORDER BY seq`)).map((row) => row.seq);

  async function expectEveryEventOnce() {
    const stored = storedSeqs();
    await until('ClickHouse holds every stored event', async () => ((await shippedSeqs()).length >= stored.length ? true : undefined));
    expect(await shippedSeqs()).toEqual(stored);
  }

  it('ships what ingest stored without being asked, every event once, and counts it', async () => {
    // On its own thread (dist/clickhouse-shipping-thread.mjs): a batch's SQLite read and JSON never hold the HTTP thread.
    expect(server.app.clickhouseShipping?.kind).toBe('thread');
    await post(150);
    await post(150);
    await server.projected();
    await expectEveryEventOnce();
    await until('the lag gauge reads 0', async () => ((await metric('sightline_clickhouse_lag_events')) === 0 ? true : undefined));
    expect(await metric('sightline_clickhouse_shipped_total')).toBe(300);
    expect(await metric('sightline_clickhouse_errors_total')).toBe(0);
    // Visits went along: one row per live visit, as the projector has them.
    const [visits] = await clickhouse.query<{ n: number }>(sql`SELECT sum(sign) AS n FROM signed_visits`);
    expect(visits!.n).toBe(server.db.prepare('SELECT count(*) FROM sessions').pluck().get());
  });

  it('keeps acknowledging while ClickHouse is down, counts the failures, and catches up once after a restart', async () => {
    await clickhouseServer.kill();
    const errorsBefore = (await metric('sightline_clickhouse_errors_total'))!;
    for (let round = 0; round < 5; round++) await post(40);
    await server.projected();
    await until('the error counter grows', async () => ((await metric('sightline_clickhouse_errors_total'))! >= errorsBefore + 2 ? true : undefined));
    expect(await metric('sightline_clickhouse_lag_events')).toBe(200);
    // A read's wait for the shipper, while it fails, answers false at once, not at the end of its bound (10 minutes
    // here; the test's own timeout is 2): the read then answers 503 or what ClickHouse holds.
    const loop = server.app.clickhouseShipping!;
    expect(await loop.waitForShipped(Number(server.db.prepare('SELECT max(seq) FROM events').pluck().get()), 600_000)).toBe(false);
    await clickhouseServer.restart();
    await expectEveryEventOnce();
    await until('the lag gauge reads 0', async () => ((await metric('sightline_clickhouse_lag_events')) === 0 ? true : undefined));
    expect(await metric('sightline_clickhouse_shipped_total')).toBe(500);
    // Events stored after the restart follow too.
    await post(25);
    await server.projected();
    await expectEveryEventOnce();
  }, 120_000);

  it('app.close() stops the shipper while ClickHouse is down, and a later server resumes from ClickHouse\'s position', async () => {
    await clickhouseServer.kill();
    await post(30);
    await server.projected();
    await server.close();
    await clickhouseServer.restart();
    server = await startTestServer({
      dataDir,
      clock: manualClock('2026-03-20T12:00:00.000Z'),
      env: { CLICKHOUSE_URL: clickhouseServer.url, CLICKHOUSE_DATABASE: 'background', LOG_RETAIN_DAYS: keepWholeLog },
      clickhouseShipping: { intervalMs: 200, backoffMs: 50, maxBackoffMs: 400 },
    });
    await expectEveryEventOnce();
    expect(storedSeqs()).toHaveLength(555);
    // This process shipped only the 30 the other one could not.
    await until('30 shipped', async () => ((await metric('sightline_clickhouse_shipped_total')) === 30 ? true : undefined));
  }, 120_000);

  it('without CLICKHOUSE_URL nothing ships and /metrics has no ClickHouse series', async () => {
    const plain = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') });
    try {
      expect(plain.app.clickhouseShipping).toBeUndefined();
      const metrics = await plain.request('GET', '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.text).toContain('sightline_projector_lag_events');
      expect(metrics.text).not.toContain('sightline_clickhouse_');
    } finally {
      await plain.close();
    }
  });
});
