// The read model's contract suite, report, event, time, person and engagement questions, answered by ClickHouse: events go in through the real
// server (POST /s2s/events into SQLite), the projector derives their visits, the shipper sends both to a real
// clickhouse-server, and summary, ranking and propValues (src/read-model/clickhouse/report-reads.ts) and the event
// lists, type counts and activity (event-reads.ts) and timelines (person-reads.ts, over the shipped identity bindings)
// and page engagement (engagement-reads.ts) are answered from it. The other families (funnels, attribution,
// behaviour, goals) are not implemented over ClickHouse yet, so their cases are not run here at all (they run
// against SQLite in test/read-model/sqlite.test.ts).
import { createClickHouse } from '../../src/clickhouse/client.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { createClickHouseReadModel } from '../../src/read-model/clickhouse/clickhouse-read-model.ts';
import type { ReadModel } from '../../src/read-model/read-model.ts';
import { seedWorkspace, startTestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { contractNow, describeReadModelContract } from '../read-model/contract.ts';
import { startClickHouse } from './_server.ts';

describeReadModelContract(
  'ClickHouse, report, event and time questions',
  async () => {
    const [server, clickhouseServer] = await Promise.all([startTestServer({ clock: manualClock(contractNow) }), startClickHouse()]);
    const workspace = await seedWorkspace(server, 'contract', { sites: ['contract-a', 'contract-b'] });
    const clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'sightline', timeoutMs: 10_000 });
    await applyClickHouseSchema(clickhouse);
    const shipper = createShipper({ db: server.db, clickhouse });
    // What the app's wait will do: the projector passes every stored event, then ClickHouse receives them.
    const waitForShipping = async () => {
      await server.projected();
      await shipper.shipAll();
      return true;
    };
    // Composed as the app composes it: what ClickHouse answers comes from it (a partial period's cut and realtime stay
    // on the embedded database by design, docs/clickhouse.md); only the families below are asked.
    const readModel: ReadModel = createClickHouseReadModel({ clickhouse, waitForShipping, deletionsOf: () => [], embedded: server.app.readModel, db: server.db });
    return {
      readModel,
      siteA: 'contract-a',
      siteB: 'contract-b',
      workspaceId: workspace.id,
      store: async (siteId, events) => {
        const response = await server.request('POST', '/s2s/events', { token: siteId, body: events });
        if (response.status !== 202) throw new Error(`store: ${response.status} ${response.text}`);
        // Shipped at once, so questions that wait for nothing (a timeline) read ClickHouse, not the unshipped tail
        // (test/clickhouse/timeline.test.ts covers the tail).
        await waitForShipping();
      },
      close: async () => {
        await Promise.all([server.close(), clickhouseServer.close()]);
      },
    };
  },
  ['report', 'event', 'time', 'person', 'engagement', 'behaviour', 'goal', 'attribution'],
);
