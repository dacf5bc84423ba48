// Shipping exactly once: events stored through the real server (SQLite) are shipped to a real clickhouse-server in
// batches, and ClickHouse ends up with every projected event exactly once and the projector's visits, whatever
// happens on the way: a crash between a batch's visits and its events, a crash right after an insert (a new shipper
// resumes from ClickHouse's own position), ClickHouse killed and restarted mid-way, a late event merging two visits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseUnavailableError, createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper, visitColumns } from '../../src/clickhouse/shipper.ts';
import { sql, SqlText } from '../../src/clickhouse/sql-literal.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { startClickHouse, until, type ClickHouseTestServer } from './_server.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
let counter = 0;
function wire(siteId: string, anonId: string, at: number, extra: Record<string, unknown> = {}) {
  counter++;
  return {
    id: `00000000-0000-4000-9000-${String(counter).padStart(12, '0')}`,
    site_id: siteId,
    anon_id: anonId,
    ts: new Date(at).toISOString(),
    type: counter % 5 === 0 ? 'signup' : 'pageview',
    url: `https://shop.example/p${counter % 7}?q=${counter % 3}`,
    context: { user_agent: chrome },
    ...extra,
  };
}

const base = Date.parse('2026-03-02T08:00:00.000Z');
const visitColumnsSql = new SqlText(visitColumns.join(', '));
const minute = 60_000;

describe('shipping to ClickHouse exactly once', () => {
  let server: TestServer;
  let clickhouseServer: ClickHouseTestServer;
  let databases = 0;

  async function store(siteId: string, events: Record<string, unknown>[]) {
    for (let start = 0; start < events.length; start += 100) {
      const response = await server.request('POST', '/s2s/events', { token: siteId, body: events.slice(start, start + 100) });
      if (response.status !== 202) throw new Error(`store: ${response.status} ${response.text}`);
    }
    await server.projected();
  }

  async function freshDatabase(): Promise<ClickHouse> {
    const clickhouse = createClickHouse({ url: clickhouseServer.url, database: `ship_${++databases}`, timeoutMs: 10_000 });
    await applyClickHouseSchema(clickhouse);
    return clickhouse;
  }

  /** Every stored event once (counted without FINAL: no row twice), and the projector's visits as they are now. */
  async function expectExactlyOnce(clickhouse: ClickHouse) {
    const stored = server.db.prepare('SELECT seq FROM events ORDER BY seq').pluck().all() as number[];
    const shipped = (await clickhouse.query<{ seq: number }>(sql`SELECT seq FROM events ORDER BY seq`)).map((row) => row.seq);
    expect(shipped).toEqual(stored);
    const visits = server.db
      .prepare('SELECT id AS visit_id, site_id, anon_id, is_internal, start_ts, end_ts, events, pageviews, entry_seq, exit_seq FROM sessions ORDER BY site_id, anon_id, is_internal, id')
      .all();
    const live = await clickhouse.query(
      sql`SELECT visit_id, site_id, anon_id, is_internal, start_ts, end_ts, events, pageviews, entry_seq, exit_seq FROM signed_visits
          GROUP BY visit_id, site_id, anon_id, is_internal, start_ts, end_ts, events, pageviews, entry_seq, exit_seq HAVING sum(sign) = 1 ORDER BY site_id, anon_id, is_internal, visit_id`,
    );
    expect(live).toEqual(visits);
    // No value counted twice or below zero: every visit row's values net 0 (cancelled) or 1 (live).
    const [netted] = await clickhouse.query<{ wrong: number }>(sql`SELECT count() AS wrong FROM (SELECT sum(sign) AS net FROM signed_visits GROUP BY ${visitColumnsSql}) WHERE net NOT IN (0, 1)`);
    expect(netted!.wrong).toBe(0);
  }

  beforeAll(async () => {
    [server, clickhouseServer] = await Promise.all([startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') }), startClickHouse()]);
    await seedWorkspace(server, 'ship', { sites: ['ship-a', 'ship-b'] });
    // 40 visitors on two sites, visits of a few events 3 minutes apart and 40 minutes between visits, a bot, and
    // internal traffic: 600 events.
    const events: Record<string, unknown>[] = [];
    for (let index = 0; index < 600; index++) {
      const visitor = index % 40;
      const step = Math.floor(index / 40);
      const at = base + visitor * 7 * minute + step * (step % 3 === 0 ? 40 : 3) * minute;
      const extra = visitor === 7 ? { context: { user_agent: googlebot } } : visitor === 9 ? { internal: true } : {};
      events.push(wire(visitor % 2 ? 'ship-a' : 'ship-b', `v${visitor}`, at, extra));
    }
    await store('ship-a', events.filter((event) => event.site_id === 'ship-a'));
    await store('ship-b', events.filter((event) => event.site_id === 'ship-b'));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([server?.close(), clickhouseServer?.close()]);
  });

  it('ships the backlog in batches, in ingest order, every event once with its visits', async () => {
    const clickhouse = await freshDatabase();
    const shipper = createShipper({ db: server.db, clickhouse, batchSize: 64 });
    const result = await shipper.shipAll();
    expect(result.events).toBe(600);
    expect(result.batches).toBe(Math.ceil(600 / 64));
    await expectExactlyOnce(clickhouse);
    // Nothing new: another run ships nothing.
    expect((await shipper.shipAll()).events).toBe(0);
    await expectExactlyOnce(clickhouse);
  });

  it('resumes after a crash between a batch\'s visits and its events: the batch is sent again, once', async () => {
    const clickhouse = await freshDatabase();
    let crashes = 0;
    const crashing = createShipper({
      db: server.db,
      clickhouse,
      batchSize: 100,
      beforeEventsInsert: () => {
        if (++crashes === 3) throw new Error('crash');
      },
    });
    await expect(crashing.shipAll()).rejects.toThrow('crash');
    expect(await crashing.shippedThrough()).toBeGreaterThan(0);
    const resumed = createShipper({ db: server.db, clickhouse, batchSize: 100 });
    // The crashed batch again: its visits are live in ClickHouse as they are, so not one visit row is sent.
    const again = await resumed.shipBatch();
    expect(again).toMatchObject({ events: 100, visitRows: 0 });
    expect(again.visits).toBeGreaterThan(0);
    await resumed.shipAll();
    await expectExactlyOnce(clickhouse);
  });

  it('resumes after a crash right after an insert: a new shipper starts after the highest seq ClickHouse holds', async () => {
    const clickhouse = await freshDatabase();
    const first = await createShipper({ db: server.db, clickhouse, batchSize: 250 }).shipBatch();
    expect(first.events).toBe(250);
    // The process dies here, before anything else; nothing local recorded the batch.
    const restarted = createShipper({ db: server.db, clickhouse, batchSize: 250 });
    expect(await restarted.shippedThrough()).toBe(first.through);
    expect((await restarted.shipAll()).events).toBe(350);
    await expectExactlyOnce(clickhouse);
  });

  it('never stores a batch twice: an insert still running when a new shipper starts is waited for, not sent again', async () => {
    const clickhouse = await freshDatabase();
    await createShipper({ db: server.db, clickhouse, batchSize: 100 }).shipBatch();
    // The next batch of 200 events: its visits land, then its events insert is sent and its request fails while the
    // server still runs it (a timeout, a process that died); here it runs slowly under the shipper's own query id.
    const interrupted = createShipper({
      db: server.db,
      clickhouse,
      batchSize: 200,
      beforeEventsInsert: () => {
        throw new Error('the request failed');
      },
    });
    await expect(interrupted.shipBatch()).rejects.toThrow('the request failed');
    await clickhouse.exec(sql`CREATE TABLE staged AS events ENGINE = Memory`);
    const next = server.db
      .prepare('SELECT seq, site_id, id, type, ts, received_at, anon_id, source, is_bot, is_internal, raw FROM events ORDER BY seq LIMIT 200 OFFSET 100')
      .all() as object[];
    await clickhouse.insert('staged', next);
    const queryId = `sightline_ship_${clickhouse.database}_events`;
    const search = new URLSearchParams({ database: clickhouse.database, query_id: queryId });
    const slow = fetch(`${clickhouseServer.url}/?${search}`, { method: 'POST', body: 'INSERT INTO events SELECT * FROM staged WHERE sleepEachRow(0.014) = 0' });
    await until('the slow insert runs', async () => {
      const [row] = await clickhouse.query<{ n: number }>(sql`SELECT count() AS n FROM system.processes WHERE query_id = ${queryId}`);
      return row!.n > 0 ? true : undefined;
    });
    const restarted = createShipper({ db: server.db, clickhouse, batchSize: 1000 });
    expect((await restarted.shipAll()).events).toBe(300);
    expect((await slow).status).toBe(200);
    await expectExactlyOnce(clickhouse);
  });

  it('survives ClickHouse killed mid-way: the batch fails as unavailable, and after a restart the rest ships once', async () => {
    const clickhouse = await freshDatabase();
    const shipper = createShipper({ db: server.db, clickhouse, batchSize: 200 });
    await shipper.shipBatch();
    await clickhouseServer.kill();
    await expect(shipper.shipBatch()).rejects.toBeInstanceOf(ClickHouseUnavailableError);
    await clickhouseServer.restart();
    await shipper.shipAll();
    await expectExactlyOnce(clickhouse);
  }, 60_000);

  it('replaces visits a late event merged: the merged-away visit gets a tombstone and is no longer counted', async () => {
    const clickhouse = await freshDatabase();
    const shipper = createShipper({ db: server.db, clickhouse, batchSize: 1000 });
    const at = Date.parse('2026-03-05T10:00:00.000Z');
    await store('ship-a', [wire('ship-a', 'late', at), wire('ship-a', 'late', at + 50 * minute)]);
    await shipper.shipAll();
    const liveOf = async () =>
      clickhouse.query<{ start_ts: number; end_ts: number; events: number }>(
        sql`SELECT start_ts, end_ts, events FROM signed_visits WHERE site_id = 'ship-a' AND anon_id = 'late' GROUP BY start_ts, end_ts, events HAVING sum(sign) = 1 ORDER BY start_ts`,
      );
    expect(await liveOf()).toEqual([
      { start_ts: at, end_ts: at, events: 1 },
      { start_ts: at + 50 * minute, end_ts: at + 50 * minute, events: 1 },
    ]);
    // 25 minutes after the first and before the second: one visit of three events.
    await store('ship-a', [wire('ship-a', 'late', at + 25 * minute)]);
    const merged = await shipper.shipBatch();
    expect(merged.tombstones).toBe(1);
    expect(await liveOf()).toEqual([{ start_ts: at, end_ts: at + 50 * minute, events: 3 }]);
    await expectExactlyOnce(clickhouse);
  });
});
