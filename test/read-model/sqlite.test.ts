// The read model's contract suite against the SQLite implementation, behind the real server: events go in through
// POST /s2s/events and the read model is the one the app built.
import { seedWorkspace, startTestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { contractNow, describeReadModelContract } from './contract.ts';

describeReadModelContract('SQLite', async () => {
  const server = await startTestServer({ clock: manualClock(contractNow) });
  const workspace = await seedWorkspace(server, 'contract', { sites: ['contract-a', 'contract-b'] });
  return {
    readModel: server.app.readModel,
    siteA: 'contract-a',
    siteB: 'contract-b',
    workspaceId: workspace.id,
    store: async (siteId, events) => {
      const response = await server.request('POST', '/s2s/events', { token: siteId, body: events });
      if (response.status !== 202) throw new Error(`store: ${response.status} ${response.text}`);
    },
    close: () => server.close(),
  };
});
