// A GDPR deletion's part in the bridge: the subject's lead signals and every delivery naming it go (attempts
// included); another person's, and another workspace's, stay.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inWriteTransaction } from '../../src/db/statements.ts';
import { forgetSubjectWebhooks } from '../../src/integrations/forget-subject.ts';
import { browserUserAgent } from '../e2e/_server.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { type Receiver, startReceiver } from './_receiver.ts';

const clock = manualClock();
let server: TestServer;
let receiver: Receiver;
const workspaceIds: Record<string, string> = {};
const keys: Record<string, string> = {};

async function prepare(slug: string): Promise<void> {
  workspaceIds[slug] = (await seedWorkspace(server, slug, { sites: [`${slug}-site`] })).id;
  keys[slug] = (await server.request('POST', `/workspaces/${slug}/keys`, { body: { label: 'i', scopes: ['integrations:write'] } })).body.plaintext;
  await server.request('POST', `/v1/workspaces/${slug}/integrations/endpoints`, { body: { url: receiver.url, event_types: ['bridge.action_recorded', 'event.purchase'] } });
  for (const user of ['alice', 'bob']) {
    const event = { id: crypto.randomUUID(), site_id: `${slug}-site`, anon_id: `${user}-device`, user_id: user, ts: clock.iso(), type: 'purchase', url: 'https://shop.example/', revenue: { amount: '5.00', currency: 'EUR' } };
    expect((await server.request('POST', '/events', { token: `${slug}-site`, headers: { 'user-agent': browserUserAgent }, body: event })).status).toBe(202);
    await server.projected();
    const action = { schema: 'sightline.integration.action@1', action: 'lead.signal', lead_id: user, signal: 'contacted', idempotency_key: `${user}-1` };
    expect((await server.request('POST', `/workspaces/${slug}/integrations/bridge/actions`, { token: keys[slug], body: action })).status).toBe(200);
  }
}

const count = (sql: string) => (server.db.prepare(sql).get() as { n: number }).n;

beforeEach(async () => {
  receiver = await startReceiver({ status: 500 });
  server = await startTestServer({ clock, projector: 'inline', env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' } });
  await prepare('acme');
  await prepare('rival');
  await server.app.deliveries.deliverDue();
});
afterEach(async () => {
  await server.close();
  await receiver.close();
});

describe('forgetSubjectWebhooks', () => {
  it("removes the subject's lead signals and deliveries with their attempts, and nothing else", async () => {
    expect(count('SELECT count(*) AS n FROM webhook_outbox')).toBe(8);
    expect(count('SELECT count(*) AS n FROM webhook_attempts')).toBe(8);
    const removed = inWriteTransaction(server.db, () => forgetSubjectWebhooks(server.db, { workspaceId: workspaceIds.acme!, userId: 'alice', anonIds: ['alice-device'] }));
    expect(removed).toEqual({ actions: 1, deliveries: 2 });
    expect(count('SELECT count(*) AS n FROM webhook_outbox')).toBe(6);
    expect(count('SELECT count(*) AS n FROM webhook_attempts')).toBe(6);
    expect(count("SELECT count(*) AS n FROM bridge_actions WHERE lead_id = 'alice'")).toBe(1);
    expect(count("SELECT count(*) AS n FROM webhook_outbox WHERE body LIKE '%alice%'")).toBe(2);
    // Repeat-safe.
    expect(inWriteTransaction(server.db, () => forgetSubjectWebhooks(server.db, { workspaceId: workspaceIds.acme!, userId: 'alice', anonIds: ['alice-device'] }))).toEqual({ actions: 0, deliveries: 0 });
  });

  it('finds an anonymous subject by its anon_ids alone', () => {
    const removed = inWriteTransaction(server.db, () => forgetSubjectWebhooks(server.db, { workspaceId: workspaceIds.acme!, userId: null, anonIds: ['bob-device'] }));
    expect(removed).toEqual({ actions: 0, deliveries: 1 });
  });

  it('runs inside POST /sites/:siteId/gdpr/delete: the lead signals and deliveries of the subject go with its events', async () => {
    const deleted = await server.request('POST', '/sites/acme-site/gdpr/delete', { body: { user_id: 'alice' } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(count("SELECT count(*) AS n FROM bridge_actions WHERE lead_id = 'alice'")).toBe(1);
    expect(count("SELECT count(*) AS n FROM webhook_outbox WHERE body LIKE '%alice%'")).toBe(2);
    expect(count('SELECT count(*) AS n FROM webhook_outbox')).toBe(6);
    const audit = server.db.prepare("SELECT metadata FROM audit_log WHERE action = 'gdpr.delete'").get() as { metadata: string };
    expect(JSON.parse(audit.metadata)).toMatchObject({ bridge_actions: 1, webhook_deliveries: 2 });
  });
});
