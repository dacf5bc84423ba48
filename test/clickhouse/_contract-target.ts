// The read model's contract suite over ClickHouse, on one node or on a cluster: events go in through the real server
// (POST /s2s/events into SQLite), the projector derives their visits, the shipper sends both to real clickhouse-servers,
// and the families ClickHouse implements are answered from there, composed as the app composes the read model.
import { createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { clusterOf } from '../../src/clickhouse/cluster.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { createClickHouseReadModel } from '../../src/read-model/clickhouse/clickhouse-read-model.ts';
import type { ReadModel } from '../../src/read-model/read-model.ts';
import { withSourceGroups } from '../../src/read-model/source-groups.ts';
import { storedSources } from '../../src/read-model/sqlite/stored-sources.ts';
import { seedWorkspace, startTestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { contractNow, describeReadModelContract } from '../read-model/contract.ts';

/** The families ClickHouse answers today; a family moved to ClickHouse is added here (and to differential.test.ts). */
export const clickHouseFamilies = ['report', 'event', 'time', 'person', 'engagement', 'behaviour', 'goal', 'attribution', 'funnel'] as const;

export interface ClickHouseTarget {
  /** CLICKHOUSE_URL (on a cluster: the entry node) and CLICKHOUSE_CLUSTER. */
  url: string;
  cluster?: string;
  close(): Promise<void>;
}

/**
 * Two site ids on different shards of a cluster (so the suite's two-site questions cross shards), or the suite's
 * usual ones on a single node. The placement is asked from the cluster itself.
 */
export async function sitesAcrossShards(clickhouse: ClickHouse, prefix: string, count = 2): Promise<string[]> {
  if (clickhouse.cluster === undefined) return Array.from({ length: count }, (_, index) => `${prefix}-${String.fromCharCode(97 + index)}`);
  const cluster = await clusterOf(clickhouse);
  const candidates = Array.from({ length: 64 }, (_, index) => `${prefix}-${String.fromCharCode(97 + (index % 26))}${index >= 26 ? Math.floor(index / 26) : ''}`);
  const placed = await cluster.shardsOfSites(candidates);
  // Round robin over the shards: site i on shard i mod n.
  const chosen: string[] = [];
  for (let index = 0; index < count; index++) {
    const shard = cluster.shards[index % cluster.shards.length]!;
    const site = candidates.find((candidate) => placed.get(candidate) === shard && !chosen.includes(candidate));
    if (!site) throw new Error(`no candidate site lands on shard ${shard.num}`);
    chosen.push(site);
  }
  return chosen;
}

export function describeContractOverClickHouse(title: string, startTarget: () => Promise<ClickHouseTarget>): void {
  describeReadModelContract(
    title,
    async () => {
      const [server, target] = await Promise.all([startTestServer({ clock: manualClock(contractNow) }), startTarget()]);
      const clickhouse = createClickHouse({ url: target.url, database: 'sightline', timeoutMs: 10_000, cluster: target.cluster });
      await applyClickHouseSchema(clickhouse);
      const [siteA, siteB] = await sitesAcrossShards(clickhouse, 'contract');
      const workspace = await seedWorkspace(server, 'contract', { sites: [siteA!, siteB!] });
      const shipper = createShipper({ db: server.db, clickhouse });
      // What the app's wait will do: the projector passes every stored event, then ClickHouse receives them.
      const waitForShipping = async () => {
        await server.projected();
        await shipper.shipAll();
        return true;
      };
      // Composed as the app composes it: what ClickHouse answers comes from it (a partial period's cut and realtime
      // stay on the embedded database by design, docs/clickhouse.md); only the families below are asked.
      // Wrapped as the app wraps it: a group's name in a source filter names its stored sources.
      const readModel: ReadModel = withSourceGroups(
        createClickHouseReadModel({ clickhouse, waitForShipping, deletionsOf: () => [], embedded: server.app.readModel, db: server.db }),
        (siteIds) => storedSources(server.db, siteIds),
      );
      return {
        readModel,
        siteA: siteA!,
        siteB: siteB!,
        workspaceId: workspace.id,
        store: async (siteId, events) => {
          const response = await server.request('POST', '/s2s/events', { token: siteId, body: events });
          if (response.status !== 202) throw new Error(`store: ${response.status} ${response.text}`);
          // Shipped at once, so questions that wait for nothing (a timeline) read ClickHouse, not the unshipped tail
          // (test/clickhouse/timeline.test.ts covers the tail).
          await waitForShipping();
        },
        close: async () => {
          await Promise.all([server.close(), target.close()]);
        },
      };
    },
    [...clickHouseFamilies],
  );
}
