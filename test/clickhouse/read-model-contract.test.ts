// The read model's contract suite, for the families ClickHouse answers, on a single clickhouse-server (the cluster's
// run is read-model-contract-cluster.test.ts). The other families run against SQLite in test/read-model/sqlite.test.ts.
import { describeContractOverClickHouse } from './_contract-target.ts';
import { startClickHouse } from './_server.ts';

describeContractOverClickHouse('ClickHouse, the families it answers', async () => {
  const server = await startClickHouse();
  return { url: server.url, close: () => server.close() };
});
