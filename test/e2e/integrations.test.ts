// The automation bridge against the shipped server (a child process, its projector on its own thread): an endpoint
// created over HTTP, a purchase projected and a lead signal recorded, both delivered to a local receiver that verifies
// them with the independent standardwebhooks package; a delivery refused (503) is made by the restarted server with the
// same webhook-id. Then SIGTERM drains and exits 0.
import { describe, expect, it } from 'vitest';
import { type Receiver, startReceiver, verifyDelivery } from '../integrations/_receiver.ts';
import { browserEvent, cleanExit, createSite, ingest, useShippedServers } from './_server.ts';

const siteId = 'bridge-e2e';
let receiver: Receiver | undefined;
const servers = useShippedServers({ afterEachTest: () => receiver?.close() });

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited > 20_000) throw new Error(`waited 20 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the shipped server', () => {
  it('delivers signed webhooks of a projected purchase and a lead signal, and keeps an undelivered one across a restart', async () => {
    receiver = await startReceiver({ status: 204 });
    const server = await servers.start({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    await createSite(server, siteId);
    const workspace = `/v1/workspaces/ws-${siteId}`;
    const endpoint = await server.request('POST', `${workspace}/integrations/endpoints`, { body: { url: receiver.url, event_types: ['event.purchase', 'bridge.action_recorded'] } });
    expect(endpoint.status, endpoint.text).toBe(201);
    const key = await server.request('POST', `${workspace}/keys`, { body: { label: 'zapier', scopes: ['integrations:write'] } });

    const [purchase] = await ingest(server, '/v1/s2s/events', siteId, [
      { ...browserEvent(siteId, { anon_id: 'dana', user_id: 'lead-dana', type: 'purchase', revenue: { amount: '19.90', currency: 'EUR' } }), url: undefined },
    ]);
    await waitFor(() => receiver!.received.length === 1, 'the purchase delivery');
    expect(verifyDelivery(endpoint.body.secret, receiver.received[0]!)).toMatchObject({
      schema: 'sightline.webhook@1',
      type: 'event.purchase',
      workspace: { slug: `ws-${siteId}` },
      data: { site_id: siteId, event_id: purchase!.id, user_id: 'lead-dana', revenue: { amount: '19.90', currency: 'EUR' } },
    });

    // The receiver is down for a moment: the lead signal stays in the outbox.
    receiver.script({ status: 503 }, { status: 204 });
    const signal = { schema: 'sightline.integration.action@1', action: 'lead.signal', lead_id: 'lead-dana', signal: 'meeting_booked', idempotency_key: 'zap-1' };
    const recorded = await server.request('POST', `${workspace}/integrations/bridge/actions`, { token: key.body.plaintext, body: signal });
    expect(recorded.status, recorded.text).toBe(200);
    await waitFor(() => receiver!.received.length === 2, 'the first attempt of the lead signal');
    expect(await server.stop(), server.output()).toEqual(cleanExit);

    await server.restart();
    // The first retry is due 4-6 s after the refused attempt.
    await waitFor(() => receiver!.received.length === 3, 'the retried lead signal');
    const [refused, retried] = receiver.received.slice(1);
    expect(retried!.headers['webhook-id']).toBe(refused!.headers['webhook-id']);
    expect(verifyDelivery(endpoint.body.secret, retried!)).toMatchObject({ type: 'bridge.action_recorded', data: { lead_id: 'lead-dana', signal: 'meeting_booked' } });
    const history = await server.request('GET', `${workspace}/integrations/endpoints/${endpoint.body.id}/deliveries`);
    expect(history.body.deliveries.map((delivery: { type: string; status: string; attempts: number }) => [delivery.type, delivery.status, delivery.attempts])).toEqual([
      ['bridge.action_recorded', 'delivered', 2],
      ['event.purchase', 'delivered', 1],
    ]);
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });
});
