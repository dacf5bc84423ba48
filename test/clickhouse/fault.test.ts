// The fault test of issue 27: clickhouse-server is SIGKILLed in the middle of a large shipping batch, inside the
// events insert (a proxy holds the insert half-way, so ClickHouse is known to be reading its rows when it dies), ingest
// goes on acknowledging meanwhile, and after a restart ClickHouse holds every acknowledged event exactly once (counted
// without FINAL: no row twice) and the projector's visits. On a cluster the dead server is shard 2, after shard 1
// took its part of the batch: the batch is half in, and the next one must complete shard 2 without doubling shard 1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseUnavailableError, createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { identifier, sql } from '../../src/clickhouse/sql-literal.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { sitesAcrossShards } from './_contract-target.ts';
import { startClickHouse, startClickHouseCluster, until, type ClickHouseTestServer } from './_server.ts';
import { startStallingProxy, type StallingProxy } from './_stalling-proxy.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const base = Date.parse('2026-03-02T08:00:00.000Z');
// 2,000 events of about 1.6 KB each as JSON: a batch of some 3 MB, 1.6 MB per site (so per shard on the cluster),
// past the 1.25 MiB the proxy lets through. Fewer, larger events than before: the suite's CPU goes per event.
const perSite = 1000;
let counter = 0;

function wire(siteId: string, index: number) {
  counter++;
  // 150 visitors per site, an event every 2 minutes each: visits of several events.
  return {
    id: `00000000-0000-4000-a000-${String(counter).padStart(12, '0')}`,
    site_id: siteId,
    anon_id: `v${index % 150}`,
    ts: new Date(base + Math.floor(index / 150) * 120_000 + (index % 150) * 1000).toISOString(),
    type: index % 7 === 0 ? 'signup' : 'pageview',
    url: `https://shop.example/p${index % 11}`,
    context: { user_agent: chrome },
    props: { note: 'n'.repeat(1000) },
  };
}

interface Target {
  /** The shipper's client (on a cluster: the entry node, with shard 2 reached through the proxy). */
  clickhouse: ClickHouse;
  /** The server that dies, and the proxy in front of it. */
  victim: ClickHouseTestServer;
  proxy: StallingProxy;
  /** Rows of events on each server, read directly (local tables on a cluster). */
  rowsPerServer(): Promise<number[]>;
  close(): Promise<void>;
}

async function countRows(url: string, table: string): Promise<number> {
  const [row] = await createClickHouse({ url, database: 'sightline' }).query<{ n: number }>(sql`SELECT count() AS n FROM ${identifier(table)}`);
  return row!.n;
}

const targets: [string, () => Promise<Target>][] = [
  [
    'a single node',
    async () => {
      const node = await startClickHouse();
      const proxy = await startStallingProxy({ host: '127.0.0.1', port: node.httpPort });
      const clickhouse = createClickHouse({ url: proxy.url, database: 'sightline', timeoutMs: 20_000 });
      return { clickhouse, victim: node, proxy, rowsPerServer: async () => [await countRows(node.url, 'events')], close: async () => void (await Promise.all([proxy.close(), node.close()])) };
    },
  ],
  [
    'a two-shard cluster, shard 2 killed after shard 1 took its part',
    async () => {
      const cluster = await startClickHouseCluster();
      const [first, second] = cluster.shards;
      const proxy = await startStallingProxy({ host: '127.0.0.2', port: second.httpPort });
      const entry = createClickHouse({ url: first.url, database: 'sightline', timeoutMs: 20_000, cluster: cluster.name });
      // Shard 2 is reached through the proxy; everything else is the real cluster client.
      const clickhouse: ClickHouse = { ...entry, forHost: (url) => entry.forHost(url === second.url ? proxy.url : url) };
      return {
        clickhouse,
        victim: second,
        proxy,
        rowsPerServer: async () => [await countRows(first.url, 'events_local'), await countRows(second.url, 'events_local')],
        close: async () => void (await Promise.all([proxy.close(), cluster.close()])),
      };
    },
  ],
];

describe.each(targets)('ClickHouse SIGKILLed mid-batch: %s', (_name, startTarget) => {
  let server: TestServer;
  let target: Target;
  let sites: string[];

  async function store(siteId: string, events: Record<string, unknown>[]) {
    for (let start = 0; start < events.length; start += 500) {
      const response = await server.request('POST', '/s2s/events', { token: siteId, body: events.slice(start, start + 500) });
      expect(response.status).toBe(202);
    }
  }

  beforeAll(async () => {
    [server, target] = await Promise.all([startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') }), startTarget()]);
    await applyClickHouseSchema(target.clickhouse);
    sites = await sitesAcrossShards(target.clickhouse, 'fault');
    await seedWorkspace(server, 'fault', { sites });
    // The sites' events interleave in the log (chunks of 250 in turn), so each shard's part of a batch spans it all:
    // the highest seq of shard 1 is above most of shard 2's.
    for (let start = 0; start < perSite; start += 250) {
      for (const site of sites) await store(site, Array.from({ length: 250 }, (_, index) => wire(site, start + index)));
    }
    await server.projected();
  }, 180_000);
  afterAll(async () => {
    await Promise.all([server?.close(), target?.close()]);
  });

  it('finds every acknowledged event exactly once after a restart', async () => {
    const shipper = createShipper({ db: server.db, clickhouse: target.clickhouse, batchSize: 2 * perSite });
    // 1.25 MiB of the insert passes: ClickHouse 18.16 starts an insert (it shows in system.processes) once it has
    // filled its first 1 MiB read buffer of the body.
    const held = target.proxy.stallNextEventsInsert(1.25 * 1024 * 1024);
    const attempt = shipper.shipBatch();
    attempt.catch(() => undefined);
    await held;
    // ClickHouse is inside the insert (it has its head and the first rows, and waits for the rest) when it dies.
    const victim = createClickHouse({ url: target.victim.url, database: 'system' });
    await until('the events insert runs in ClickHouse', async () => {
      const running = await victim.query<{ n: number }>(sql`SELECT count() AS n FROM system.processes WHERE query LIKE 'INSERT INTO %events%'`);
      return running[0]!.n > 0 ? true : undefined;
    });
    await target.victim.kill();
    await expect(attempt).rejects.toBeInstanceOf(ClickHouseUnavailableError);

    // Ingest goes on acknowledging while ClickHouse is down.
    for (const site of sites) await store(site, Array.from({ length: 500 }, (_, index) => wire(site, perSite + index)));
    await server.projected();

    await target.victim.restart();
    target.proxy.release();
    const rowsBefore = await target.rowsPerServer();
    // A cluster's first shard kept its part of the batch; the dead one has none of it (the insert never finished).
    expect(rowsBefore.at(-1)).toBe(0);
    if (rowsBefore.length === 2) expect(rowsBefore[0]).toBe(perSite);

    // A new shipper (as after a restart of Sightline) resumes from ClickHouse's own position(s).
    await createShipper({ db: server.db, clickhouse: target.clickhouse, batchSize: 5000 }).shipAll();
    const stored = server.db.prepare('SELECT seq FROM events ORDER BY seq').pluck().all() as number[];
    expect(stored).toHaveLength(2 * (perSite + 500));
    const shipped = (await target.clickhouse.query<{ seq: number }>(sql`SELECT seq FROM events ORDER BY seq`)).map((row) => row.seq);
    expect(shipped).toEqual(stored);
    const visits = server.db.prepare('SELECT site_id, anon_id, id AS visit_id, start_ts, end_ts, events FROM sessions ORDER BY site_id, anon_id, id').all();
    const live = await target.clickhouse.query(
      sql`SELECT site_id, anon_id, visit_id, start_ts, end_ts, events FROM signed_visits GROUP BY site_id, anon_id, visit_id, start_ts, end_ts, events HAVING sum(sign) = 1 ORDER BY site_id, anon_id, visit_id`,
    );
    expect(live).toEqual(visits);
    // Every server holds a part: on a cluster the two sites live on different shards.
    expect((await target.rowsPerServer()).every((rows) => rows > 0)).toBe(true);
  }, 180_000);
});
