// The read model's contract suite, for the families ClickHouse answers, on a two-shard cluster (CLICKHOUSE_CLUSTER):
// two clickhouse-servers on loopback, local tables on each plus Distributed ones, the suite's two sites placed on
// different shards, so its answers over both sites merge figures from both servers. The expected answers are the
// suite's, which the SQLite implementation and a single node give too.
import { describeContractOverClickHouse } from './_contract-target.ts';
import { startClickHouseCluster } from './_server.ts';

describeContractOverClickHouse('ClickHouse cluster of two shards, the families it answers', async () => {
  const cluster = await startClickHouseCluster();
  return { url: cluster.shards[0].url, cluster: cluster.name, close: () => cluster.close() };
});
