// Inbound webhooks against the shipped server (a child process started as a user starts it): the secret is set with
// the CLI on the server's DATA_DIR while it runs, a visit from a campaign comes in, then Stripe's signed
// charge.succeeded for that visitor; the purchase is counted once with its revenue, credited to the campaign, even
// when Stripe delivers it twice. Then SIGTERM drains and exits 0.
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-helpers.ts';
import { charge, stripeEvent, stripeHeader } from '../webhooks/_helpers.ts';
import { browserEvent, cleanExit, createSite, ingest, useShippedServers, utcDate } from './_server.ts';

const siteId = 'webhooks-e2e';
const secret = 'whsec_e2eSecret0123456789abcdefghijklmnop';
const servers = useShippedServers();

describe('the shipped server', () => {
  it('forwards a signed Stripe charge as a purchase with its revenue, once, after the CLI set the secret', async () => {
    const server = await servers.start();
    await createSite(server, siteId);
    const post = (payload: string) =>
      server.request('POST', `/v1/webhooks/stripe/${siteId}`, {
        token: null,
        rawBody: payload,
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': stripeHeader(payload, secret, Math.floor(Date.now() / 1000)) },
      });
    const payload = JSON.stringify(
      stripeEvent('charge.succeeded', charge({ amount: 4500, currency: 'eur', customer: 'cus_carol', metadata: { anon_id: 'carol' } }), Math.floor(Date.now() / 1000)),
    );

    // Before any secret: the generic 401.
    expect((await post(payload)).status).toBe(401);
    const set = await runCli(['webhook-secret', 'set', '--site', siteId, '--adapter', 'stripe', '--secret', secret], { DATA_DIR: server.dataDir });
    expect(set.code, set.stderr).toBe(0);

    await ingest(server, '/v1/events', siteId, [
      browserEvent(siteId, { anon_id: 'carol', ts: new Date(Date.now() - 60_000).toISOString(), url: 'https://shop.example/?utm_source=newsletter&utm_medium=email&utm_campaign=autumn' }),
    ]);
    const first = await post(payload);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ ok: true, forwarded: 1 });
    // Stripe delivers again (a timeout on its side): a duplicate, not a second purchase.
    expect((await post(payload)).body).toEqual({ ok: true, forwarded: 1 });

    // Yesterday too: the visit a minute ago may fall on the day before, just after midnight.
    const range = `from=${utcDate(-1)}&to=${utcDate()}`;
    const results = await server.request('GET', `/v1/workspaces/ws-${siteId}/attribution/results?model=last_touch&${range}`);
    expect(results.status, results.text).toBe(200);
    expect(results.body.results).toEqual([
      expect.objectContaining({ site_id: siteId, person: 'anon:carol', revenue: { amount: '45.00', currency: 'EUR' } }),
    ]);
    expect(results.body.results[0].touchpoints).toEqual([expect.objectContaining({ source: 'newsletter', campaign: 'autumn', credit: 1 })]);
    const counts = await server.request('GET', `/v1/sites/${siteId}/events?${range}`);
    expect(counts.body.by_name ?? counts.text).toContainEqual({ name: 'purchase', count: 1 });
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });
});
