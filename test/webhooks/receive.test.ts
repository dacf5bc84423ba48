// What the stripe adapter forwards and every status it answers, over HTTP: each mapped type, an unmapped one, a
// redelivery counted once, 401/404 without a hint, another workspace's site, the body cap at its edge, bodies that
// are not UTF-8 or not an event, and a forwarding failure (500, so the sender retries).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, settledTableCounts, startTestServer, type TestServer } from '../_setup.ts';
import { expectFlatError, manualClock, uuidPattern } from '../admin/_helpers.ts';
import { systemActor } from '../../src/cli/common.ts';
import { uuidV5 } from '../../src/webhooks/stripe-events.ts';
import { setWebhookSecret } from '../../src/webhooks/webhook-secrets.ts';
import { charge, postWebhook, secondsOf, secretA, secretB, signBytes, stripeEvent, stripeHeader, subscription } from './_helpers.ts';

const clock = manualClock('2026-03-01T12:00:00.000Z');
const day = '2026-03-01';
let server: TestServer;

beforeAll(async () => {
  // 100 events/s per site, a burst of 1,000: the rate-limit case below empties one site's bucket.
  server = await startTestServer({ clock, env: { RATE_LIMIT_SITE: '100' } });
  await seedWorkspace(server, 'ws-a', { sites: ['shop', 'bare', 'types', 'limits', 'throttled', 'doomed'] });
  await seedWorkspace(server, 'ws-b', { sites: ['other'] });
  for (const site of ['shop', 'types', 'limits', 'throttled', 'doomed']) setWebhookSecret(server.app.context, systemActor, site, { adapter: 'stripe', secret: secretA });
  setWebhookSecret(server.app.context, systemActor, 'other', { adapter: 'stripe', secret: secretB });
});
afterAll(() => server.close());

const now = () => secondsOf(clock.now());

/** Signs `event` (or raw text/bytes) with `secret` now and POSTs it to the site. */
async function send(siteId: string, event: Record<string, unknown> | string | Buffer, secret = secretA, path = `/v1/webhooks/stripe/${siteId}`) {
  const bytes = Buffer.isBuffer(event) ? event : Buffer.from(typeof event === 'string' ? event : JSON.stringify(event));
  return postWebhook(server, path, bytes, `t=${now()},v1=${signBytes(bytes, secretA === secret ? secretA : secret, now())}`);
}

async function listEvents(siteId: string): Promise<any[]> {
  const list = await server.request('GET', `/v1/sites/${siteId}/events/list-v2?from=${day}&to=${day}&limit=200`);
  expect(list.status, list.text).toBe(200);
  return list.body.data.events;
}

describe('mapping', () => {
  it('forwards charge.succeeded as a purchase with its revenue, ts from created and a deterministic id', async () => {
    const created = now() - 60;
    const event = stripeEvent('charge.succeeded', charge({ amount: 4500, currency: 'jpy', customer: { id: 'cus_bob', object: 'customer' }, metadata: { user_id: 'user-42', anon_id: 'visitor-7' } }), created, 'evt_purchase_1');
    const answer = await send('types', event);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ ok: true, forwarded: 1 });
    const [stored] = (await listEvents('types')).filter((item) => item.props?.stripe_event_id === 'evt_purchase_1');
    expect(stored).toMatchObject({
      id: uuidV5('types/stripe/evt_purchase_1', 'b7c5d0e2-3f4a-4c1e-9a5b-6d8e7f901234'),
      type: 'purchase',
      ts: new Date(created * 1000).toISOString(),
      anon_id: 'visitor-7',
      props: { stripe_event_id: 'evt_purchase_1', stripe_object_id: (event.data as any).object.id, stripe_customer_id: 'cus_bob' },
    });
    expect(stored.id).toMatch(uuidPattern);
    const results = await server.request('GET', `/v1/workspaces/ws-a/attribution/results?model=last_touch&from=${day}&to=${day}`);
    expect(results.status, results.text).toBe(200);
    // Bound to the user by metadata.user_id; JPY has no minor unit: 4500 is ¥4,500.
    expect(results.body.results).toContainEqual(expect.objectContaining({ person: 'user:user-42', revenue: { amount: '4500', currency: 'JPY' } }));
  });

  it.each([
    ['customer.subscription.created', 'subscription_created'],
    ['customer.subscription.updated', 'subscription_updated'],
    ['customer.subscription.deleted', 'subscription_canceled'],
  ])('forwards %s as %s, anon_id from the customer', async (stripeType, type) => {
    const event = stripeEvent(stripeType, subscription({ customer: 'cus_carol', status: 'canceled' }), now());
    const answer = await send('types', event);
    expect(answer.body).toEqual({ ok: true, forwarded: 1 });
    const stored = (await listEvents('types')).filter((item) => item.props?.stripe_event_id === event.id);
    expect(stored).toEqual([expect.objectContaining({ type, anon_id: 'cus_carol', props: expect.objectContaining({ status: 'canceled', stripe_customer_id: 'cus_carol' }) })]);
  });

  it('falls back to the object id without a customer, and ignores metadata ids out of bounds', async () => {
    const object = charge({ customer: null, metadata: { user_id: 'u'.repeat(129), anon_id: '' } });
    const event = stripeEvent('charge.succeeded', object, now());
    expect((await send('types', event)).status).toBe(200);
    const stored = (await listEvents('types')).filter((item) => item.props?.stripe_event_id === event.id);
    expect(stored).toEqual([expect.objectContaining({ anon_id: object.id })]);
  });

  it('answers 200 with forwarded 0 for an unmapped type, storing nothing', async () => {
    const before = await settledTableCounts(server);
    const answer = await send('types', stripeEvent('invoice.paid', { id: 'in_1', object: 'invoice' }, now()));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ ok: true, forwarded: 0 });
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it('counts a redelivery once: the same Stripe event, signed again later, is a duplicate', async () => {
    const event = stripeEvent('charge.succeeded', charge({ amount: 2500, currency: 'usd', customer: 'cus_dave' }), now(), 'evt_redelivered');
    expect((await send('shop', event)).body).toEqual({ ok: true, forwarded: 1 });
    clock.advance(90_000);
    expect((await send('shop', event)).body).toEqual({ ok: true, forwarded: 1 });
    expect((await listEvents('shop')).filter((item) => item.props?.stripe_event_id === 'evt_redelivered')).toHaveLength(1);
    const results = await server.request('GET', `/v1/workspaces/ws-a/attribution/results?model=last_touch&from=${day}&to=${day}`);
    // The workspace's only USD purchase, counted once (not 50.00).
    expect(results.body.totals[0].revenue).toContainEqual({ currency: 'USD', amount: '25.00' });
    expect(results.body.results.filter((result: any) => result.revenue.currency === 'USD')).toHaveLength(1);
  });
});

describe('refusals', () => {
  it('answers 404 for an unknown adapter, at both paths', async () => {
    for (const path of ['/webhooks/paypal/shop', '/v1/webhooks/paypal/shop', '/v1/webhooks/Stripe/shop']) {
      expectFlatError(await send('shop', stripeEvent('charge.succeeded', charge(), now()), secretA, path), 404, 'not_found');
    }
  });

  it('answers the same generic 401 for a site without a secret and a missing site', async () => {
    const bare = await send('bare', stripeEvent('charge.succeeded', charge(), now()));
    const missing = await send('ghost', stripeEvent('charge.succeeded', charge(), now()));
    expectFlatError(bare, 401, 'unauthorized');
    // Refused before the body is read: past the size cap, still the 401 (not a 413 that would tell the sizes apart).
    expect((await send('bare', 'x'.repeat(server.config.maxBodyBytes + 1))).text).toBe(bare.text);
    expect(missing.status).toBe(401);
    expect(missing.text).toBe(bare.text);
    // The answer of any other failed authentication, word for word.
    const other = await server.request('GET', '/v1/workspaces/ws-a', { token: 'wrong' });
    expect(other.text).toBe(bare.text);
  });

  it('forgets a deleted site\'s secret: its webhooks answer the generic 401', async () => {
    expect((await send('doomed', stripeEvent('invoice.paid', {}, now()))).status).toBe(200);
    expect((await server.request('DELETE', '/v1/workspaces/ws-a/sites/doomed')).status).toBe(204);
    expectFlatError(await send('doomed', stripeEvent('invoice.paid', {}, now())), 401, 'unauthorized');
    expect(server.db.prepare("SELECT count(*) AS n FROM webhook_secrets WHERE site_id = 'doomed'").get()).toEqual({ n: 0 });
  });

  it('keeps tenants apart: one site\'s secret does not sign for another workspace\'s site', async () => {
    const before = await settledTableCounts(server);
    expectFlatError(await send('other', stripeEvent('charge.succeeded', charge(), now()), secretA), 400, 'invalid_signature');
    expect(await settledTableCounts(server)).toEqual(before);
    // Its own secret does, and the event lands in that site only.
    const event = stripeEvent('charge.succeeded', charge(), now());
    expect((await send('other', event, secretB)).status).toBe(200);
    expect((await listEvents('other')).map((item) => item.props.stripe_event_id)).toEqual([event.id]);
    expect((await listEvents('shop')).map((item) => item.props.stripe_event_id)).not.toContain(event.id);
  });

  it('takes a body of exactly the cap (1 MiB) and refuses one byte more with 413', async () => {
    const limit = server.config.maxBodyBytes;
    const text = JSON.stringify(stripeEvent('charge.succeeded', charge(), now()));
    const atLimit = text + ' '.repeat(limit - Buffer.byteLength(text));
    expect(Buffer.byteLength(atLimit)).toBe(limit);
    const accepted = await send('limits', atLimit);
    expect(accepted.status, accepted.text.slice(0, 200)).toBe(200);
    const before = await settledTableCounts(server);
    expectFlatError(await send('limits', `${atLimit} `), 413, 'payload_too_large');
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it.each([
    ['a body that is not UTF-8', Buffer.concat([Buffer.from('{"id":"evt_bytes","type":"charge.succeeded","note":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), 'invalid_json', undefined],
    ['a body that is not JSON', Buffer.from('{"id":'), 'invalid_json', undefined],
    ['an empty body', Buffer.alloc(0), 'invalid_json', undefined],
    ['JSON that is not an event', Buffer.from('{"hello":"world"}'), 'invalid_payload', ['/id', '/type', '/created', '/data']],
    ['an event whose created is not a number', Buffer.from(JSON.stringify({ ...stripeEvent('invoice.paid', {}, 0), created: 'yesterday' })), 'invalid_payload', ['/created']],
    ['a charge without an amount', Buffer.from(JSON.stringify(stripeEvent('charge.succeeded', charge({ amount: undefined }), 1772366400))), 'invalid_payload', ['/data/object/amount']],
    ['a charge in no ISO 4217 currency', Buffer.from(JSON.stringify(stripeEvent('charge.succeeded', charge({ currency: 'zzz' }), 1772366400))), 'invalid_payload', ['/data/object/currency']],
    ['a charge of a fractional amount', Buffer.from(JSON.stringify(stripeEvent('charge.succeeded', charge({ amount: 19.99 }), 1772366400))), 'invalid_payload', ['/data/object/amount']],
    ['a lone surrogate in a string', Buffer.from(`{"id":"evt_s","type":"invoice.paid","created":1,"data":{"object":{"note":"\\ud800"}}}`), 'invalid_payload', ['/data/object/note']],
    ['an event created more than 400 days ago', Buffer.from(JSON.stringify(stripeEvent('charge.succeeded', charge(), 1000))), 'invalid_payload', ['/created']],
  ])('refuses %s, correctly signed, with 400 %s and stores nothing', async (_name, bytes, code, paths) => {
    const before = await settledTableCounts(server);
    expectFlatError(await send('limits', bytes), 400, code, paths);
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it('answers 500 when the pipeline cannot take the event (rate limited), so the sender retries; the retry then counts', async () => {
    const event = stripeEvent('charge.succeeded', charge(), now(), 'evt_throttled');
    // The site's bucket holds 1000 events; emptied by ingest over /s2s/events, as a busy site's traffic would.
    const batch = Array.from({ length: 500 }, (_, index) => ({ id: crypto.randomUUID(), site_id: 'throttled', anon_id: `a${index}`, ts: clock.iso(), type: 'signup' }));
    for (let round = 0; round < 2; round++) expect((await server.request('POST', '/v1/s2s/events', { token: 'throttled', body: batch.map((item) => ({ ...item, id: crypto.randomUUID() })) })).status).toBe(202);
    const refused = await send('throttled', event);
    expectFlatError(refused, 500, 'internal_error');
    clock.advance(60_000);
    expect((await send('throttled', event)).body).toEqual({ ok: true, forwarded: 1 });
    // On a loaded machine the read's bounded wait can run out behind 1,000 events (projection_lag); wait it out.
    await server.projected();
    const counts = await server.request('GET', `/v1/sites/throttled/events?from=${day}&to=${day}`);
    expect(counts.status, counts.text).toBe(200);
    expect(counts.body.by_name).toContainEqual({ name: 'purchase', count: 1 });
  });
});

it('ids are RFC 9562 version 5 UUIDs', () => {
  // The RFC's own example: the DNS namespace and www.example.com.
  expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
});

it('answers alike through app.fetch (the web-stream body reader, not Node\'s): signed, then one byte past the cap', async () => {
  const post = (bytes: Buffer) =>
    server.app.fetch(
      new Request('http://sightline.test/v1/webhooks/stripe/limits', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': `t=${now()},v1=${signBytes(bytes, secretA, now())}` },
        body: new Uint8Array(bytes),
      }),
    );
  const text = JSON.stringify(stripeEvent('charge.succeeded', charge(), now()));
  const accepted = await post(Buffer.from(text));
  expect(accepted.status).toBe(200);
  expect(await accepted.json()).toEqual({ ok: true, forwarded: 1 });
  const tooLarge = await post(Buffer.from(text + ' '.repeat(server.config.maxBodyBytes + 1 - Buffer.byteLength(text))));
  expect(tooLarge.status).toBe(413);
  expect(await tooLarge.json()).toEqual({ error: 'payload_too_large', message: expect.any(String) });
});
