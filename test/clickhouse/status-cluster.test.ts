// `sightline clickhouse status` on a cluster (CLICKHOUSE_CLUSTER): each shard read on its own host. Its position is
// what the shipper resumes from, its lag counts only its sites' events after it, its rows and bytes are its local
// tables', and the totals are the shards' (the entry node's Distributed tables hold no parts, and the global
// max(seq) can be past a lagging shard). Two clickhouse-servers on loopback, sites placed on both shards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { readClickHouseStatus } from '../../src/clickhouse/status.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { sitesAcrossShards } from './_contract-target.ts';
import { startClickHouseCluster, type ClickHouseTestCluster } from './_server.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
let counter = 0;
function events(siteId: string, count: number) {
  return Array.from({ length: count }, () => {
    counter++;
    return {
      id: `00000000-0000-4000-a000-${String(counter).padStart(12, '0')}`,
      site_id: siteId,
      anon_id: `v${counter % 7}`,
      ts: new Date(Date.parse('2026-03-02T08:00:00.000Z') + counter * 60_000).toISOString(),
      type: 'pageview',
      url: `https://shop.example/p${counter % 5}`,
      context: { user_agent: chrome },
    };
  });
}

describe('clickhouse status on a cluster: per shard', () => {
  let cluster: ClickHouseTestCluster;
  let server: TestServer;
  let clickhouse: ClickHouse;
  let siteA: string;
  let siteB: string;

  beforeAll(async () => {
    [cluster, server] = await Promise.all([startClickHouseCluster(), startTestServer()]);
    clickhouse = createClickHouse({ url: cluster.shards[0].url, database: 'status', timeoutMs: 10_000, cluster: cluster.name });
    await applyClickHouseSchema(clickhouse);
    [siteA, siteB] = (await sitesAcrossShards(clickhouse, 'status')) as [string, string];
    await seedWorkspace(server, 'status', { sites: [siteA, siteB] });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await cluster?.close();
  });

  async function post(siteId: string, count: number) {
    const response = await server.request('POST', '/s2s/events', { token: siteId, body: events(siteId, count) });
    expect(response.status, response.text).toBe(202);
  }

  it('reads each shard on its own host, and the totals are theirs', async () => {
    await post(siteA, 30);
    await post(siteB, 12);
    await server.projected();
    const { through } = await createShipper({ db: server.db, clickhouse, batchSize: 10 }).shipAll();
    const shipped = await readClickHouseStatus(clickhouse, server.db);
    const versions = await Promise.all(cluster.shards.map((shard) => createClickHouse({ url: shard.url, database: 'status' }).version()));
    expect(shipped.shards).toHaveLength(2);
    const [first, second] = shipped.shards!;
    // Site A is on shard 1 and site B on shard 2 (sitesAcrossShards placed them so).
    expect([first!.shard, first!.event_rows, first!.shipped_through, first!.lag_events]).toEqual([1, 30, through, 0]);
    expect([second!.shard, second!.event_rows, second!.shipped_through, second!.lag_events]).toEqual([2, 12, through, 0]);
    expect(shipped.shards!.map((shard) => shard.server_version)).toEqual(versions);
    for (const shard of shipped.shards!) {
      expect(shard.visit_rows).toBeGreaterThan(0);
      expect(shard.events_bytes).toBeGreaterThan(0);
      expect(shard.bytes_per_event).toBe(Math.round(((shard.events_bytes + shard.visits_bytes) / shard.event_rows) * 10) / 10);
    }
    expect(shipped).toMatchObject({
      shipped_through: through,
      lag_events: 0,
      event_rows: 42,
      visit_rows: first!.visit_rows + second!.visit_rows,
      events_bytes: first!.events_bytes + second!.events_bytes,
      visits_bytes: first!.visits_bytes + second!.visits_bytes,
    });

    // Unshipped events of site A: the lag is shard 1's alone.
    await post(siteA, 3);
    const lagging = await readClickHouseStatus(clickhouse, server.db);
    expect(lagging.shards!.map((shard) => shard.lag_events)).toEqual([3, 0]);
    expect(lagging.lag_events).toBe(3);
  }, 120_000);
});
