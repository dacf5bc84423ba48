// Outbound webhooks over HTTP with the clock passed in: endpoints managed by the admin, deliveries signed (verified by
// the independent standardwebhooks package), retried on the schedule against a scripted local receiver (500, a
// timeout, 302, 410, 429 with Retry-After), announced once per change from the outbox, kept across a restart.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, seedWorkspace, startTestServer, type TestServer, type TestServerOptions } from '../_setup.ts';
import { expectFlatError, manualClock } from '../admin/_helpers.ts';
import { cryptoRandom } from '../../src/clock.ts';
import { maxAttempts, retryDelaysMs } from '../../src/integrations/retry-schedule.ts';
import { sealSecret } from '../../src/secrets/secret-box.ts';
import { type Receiver, startReceiver, verifyDelivery } from './_receiver.ts';
import { browserUserAgent } from '../e2e/_server.ts';

/** Events of a browser: the default user agent of fetch is taken for a bot, whose purchases are not announced. */
const asBrowser = { 'user-agent': browserUserAgent };

const endpoints = '/v1/workspaces/acme/integrations/endpoints';
const privateTargets = { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' };
const action = (key: string) => ({ schema: 'sightline.integration.action@1', action: 'lead.signal', lead_id: 'lead-1', signal: 'qualified', idempotency_key: key });

let clock = manualClock();
let server: TestServer;
let receiver: Receiver;
let integrationsKey: string;

async function start(options: TestServerOptions = {}): Promise<TestServer> {
  const started = await startTestServer({ clock, env: privateTargets, ...options });
  return started;
}

async function seed(target: TestServer): Promise<void> {
  await seedWorkspace(target, 'acme', { sites: ['acme-site'] });
  const key = await target.request('POST', '/workspaces/acme/keys', { body: { label: 'zap', scopes: ['integrations:write'] } });
  integrationsKey = key.body.plaintext;
  const event = { id: crypto.randomUUID(), site_id: 'acme-site', anon_id: 'a-1', user_id: 'lead-1', ts: clock.iso(), type: 'pageview', url: 'https://acme.example/' };
  expect((await target.request('POST', '/events', { token: 'acme-site', body: event })).status).toBe(202);
}

async function createEndpoint(target: TestServer, fields: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const response = await target.request('POST', endpoints, { body: { url: receiver.url, event_types: ['bridge.action_recorded', 'event.purchase'], ...fields } });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function recordAction(target: TestServer, key = 'k-1'): Promise<void> {
  const response = await target.request('POST', '/workspaces/acme/integrations/bridge/actions', { token: integrationsKey, body: action(key) });
  expect(response.status, response.text).toBe(200);
}

/** Replaces the test's server by a fresh, seeded one started with `options`. */
async function startAfresh(options: TestServerOptions): Promise<void> {
  await server.close();
  server = await start({ dataDir: makeTempDir(), ...options });
  await seed(server);
}

const deliveriesOf = async (target: TestServer, id: string) => (await target.request('GET', `${endpoints}/${id}/deliveries`)).body.deliveries;
const nowSeconds = () => Math.floor(clock.now() / 1000);

beforeEach(async () => {
  clock = manualClock();
  receiver = await startReceiver({ status: 204 });
  server = await start();
  await seed(server);
});
afterEach(async () => {
  await server.close();
  await receiver.close();
});

describe('endpoints', () => {
  it('shows the whsec_ secret once, never again, seals it at rest, and audits every change without it', async () => {
    const created = await createEndpoint(server, { description: 'Zapier' });
    expect(created).toMatchObject({ url: receiver.url, description: 'Zapier', event_types: ['bridge.action_recorded', 'event.purchase'], status: 'active', disabled_reason: null });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const read = await server.request('GET', `${endpoints}/${created.id}`);
    expect(read.body).not.toHaveProperty('secret');
    const listed = await server.request('GET', endpoints);
    expect(listed.body).toEqual({ endpoints: [read.body], next_cursor: null });
    const stored = server.db.prepare('SELECT secret_sealed FROM webhook_endpoints').get() as { secret_sealed: Buffer };
    expect(stored.secret_sealed.includes(Buffer.from(created.secret.slice(6), 'base64'))).toBe(false);
    const patched = await server.request('PATCH', `${endpoints}/${created.id}`, { body: { event_types: ['event.purchase'], status: 'disabled' } });
    expect(patched.body).toMatchObject({ event_types: ['event.purchase'], status: 'disabled', disabled_reason: 'operator' });
    expect((await server.request('DELETE', `${endpoints}/${created.id}`)).status).toBe(204);
    expectFlatError(await server.request('GET', `${endpoints}/${created.id}`), 404, 'not_found');
    const audit = await server.request('GET', '/workspaces/acme/audit');
    expect(audit.body.entries.map((entry: { action: string }) => entry.action).slice(0, 3)).toEqual(['endpoint.delete', 'endpoint.update', 'endpoint.create']);
    expect(audit.text).not.toContain(created.secret.slice(6));
  });

  it.each([
    ['an ftp URL', { url: 'ftp://example.com/' }, '/url'],
    ['a URL with credentials', { url: 'https://user:pw@example.com/' }, '/url'],
    ['a URL of 2049 characters', { url: `https://example.com/${'a'.repeat(2049 - 20)}` }, '/url'],
    ['no event type', { event_types: [] }, '/event_types'],
    ['an unknown event type', { event_types: ['event.pageview'] }, '/event_types/0'],
    ['an unknown field', { secret: 'whsec_mine' }, '/secret'],
  ])('refuses %s', async (_, fields, pointer) => {
    expectFlatError(await server.request('POST', endpoints, { body: { url: receiver.url, event_types: ['event.purchase'], ...fields } }), 400, 'invalid_payload', [pointer]);
  });

  it('accepts a URL of 2048 characters and at most 20 endpoints per workspace', async () => {
    await createEndpoint(server, { url: `https://example.com/${'a'.repeat(2048 - 20)}` });
    for (let index = 1; index < 20; index++) await createEndpoint(server);
    expectFlatError(await server.request('POST', endpoints, { body: { url: receiver.url, event_types: ['event.purchase'] } }), 400, 'invalid_payload', ['']);
  });

  it('needs the admin scope, and keeps every route of a workspace to its own endpoints (404 for the others)', async () => {
    const mine = await createEndpoint(server);
    await seedWorkspace(server, 'rival', { sites: ['rival-site'] });
    const rivalAdmin = (await server.request('POST', '/workspaces/rival/keys', { body: { label: 'a', scopes: ['admin'] } })).body.plaintext;
    expectFlatError(await server.request('GET', endpoints, { token: integrationsKey }), 403, 'forbidden_scope');
    const rivalPaths = `/v1/workspaces/rival/integrations/endpoints/${mine.id}`;
    for (const [method, path, body] of [
      ['GET', endpoints, undefined],
      ['POST', endpoints, { url: receiver.url, event_types: ['event.purchase'] }],
      ['GET', `${endpoints}/${mine.id}`, undefined],
      ['PATCH', `${endpoints}/${mine.id}`, { status: 'disabled' }],
      ['DELETE', `${endpoints}/${mine.id}`, undefined],
      ['GET', `${endpoints}/${mine.id}/deliveries`, undefined],
      ['POST', `${endpoints}/${mine.id}/test`, undefined],
    ] as const) {
      expectFlatError(await server.request(method, path, { token: rivalAdmin, body }), 404, 'not_found');
    }
    for (const [method, suffix, body] of [['GET', '', undefined], ['PATCH', '', { status: 'disabled' }], ['DELETE', '', undefined], ['GET', '/deliveries', undefined], ['POST', '/test', undefined]] as const) {
      expectFlatError(await server.request(method, rivalPaths + suffix, { token: rivalAdmin, body }), 404, 'not_found');
    }
    expect((await server.request('GET', '/v1/workspaces/rival/integrations/endpoints', { token: rivalAdmin })).body.endpoints).toEqual([]);
    expect(receiver.received).toHaveLength(0);
  });

  it('exists only under /v1', async () => {
    const response = await server.request('GET', '/workspaces/acme/integrations/endpoints', { unroutable: true });
    expect(response.status).toBe(404);
  });
});

describe('deliveries', () => {
  it('signs a bridge action with the Standard Webhooks scheme and the versioned payload', async () => {
    const endpoint = await createEndpoint(server);
    await recordAction(server);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(1);
    const payload = verifyDelivery(endpoint.secret, receiver.received[0]!, nowSeconds());
    expect(payload).toEqual({
      schema: 'sightline.webhook@1',
      id: receiver.received[0]!.headers['webhook-id'],
      type: 'bridge.action_recorded',
      created_at: clock.iso(),
      workspace: { id: expect.any(String), slug: 'acme' },
      data: { id: expect.any(String), lead_id: 'lead-1', action: 'lead.signal', signal: 'qualified', recorded_at: clock.iso() },
    });
    expect(receiver.received[0]!.headers['webhook-timestamp']).toBe(String(nowSeconds()));
    // A changed byte fails the independent verification.
    expect(() => verifyDelivery(endpoint.secret, { ...receiver.received[0]!, body: receiver.received[0]!.body.replace('qualified', 'qualifiee') }, nowSeconds())).toThrow();
    const [delivery] = await deliveriesOf(server, endpoint.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, next_attempt_at: null, history: [{ outcome: 'delivered', status_code: 204 }] });
    // A replay of the action announces nothing new.
    await recordAction(server);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(1);
  });

  it('announces each projected purchase once, to the endpoints subscribed to event.purchase only', async () => {
    // On this thread: the projector thread stamps its outbox rows with the real time, not the test's clock.
    await startAfresh({ projector: 'inline' });
    const purchases = await createEndpoint(server, { event_types: ['event.purchase'] });
    await createEndpoint(server, { event_types: ['bridge.action_recorded'] });
    const purchase = { id: crypto.randomUUID(), site_id: 'acme-site', anon_id: 'a-1', user_id: 'lead-1', ts: clock.iso(), type: 'purchase', url: 'https://acme.example/thanks', revenue: { amount: '45.00', currency: 'EUR' } };
    expect((await server.request('POST', '/events', { token: 'acme-site', headers: asBrowser, body: [purchase, { ...purchase, id: crypto.randomUUID(), type: 'pageview' }] })).status).toBe(202);
    await server.projected();
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(1);
    const payload = verifyDelivery(purchases.secret, receiver.received[0]!, nowSeconds());
    expect(payload).toMatchObject({ type: 'event.purchase', data: { site_id: 'acme-site', event_id: purchase.id, anon_id: 'a-1', user_id: 'lead-1', revenue: { amount: '45.00', currency: 'EUR' } } });
    expect(server.db.prepare('SELECT count(*) AS n FROM webhook_outbox').get()).toEqual({ n: 1 });
  });

  it('retries a 500 with backoff and the same webhook-id, then delivers', async () => {
    const endpoint = await createEndpoint(server);
    receiver.script({ status: 500, body: 'boom' }, { status: 500 }, { status: 200 });
    await recordAction(server);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(1);
    let [delivery] = await deliveriesOf(server, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, history: [{ outcome: 'http_error', status_code: 500, response_excerpt: 'boom' }] });
    // The first retry waits 5 s ±20 %: nothing at 3.9 s, sent by 6 s.
    clock.advance(3_900);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(1);
    clock.advance(2_100);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(2);
    clock.advance(36_000);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map((received) => received.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const received of receiver.received) verifyDelivery(endpoint.secret, received, Number(received.headers['webhook-timestamp']));
    [delivery] = await deliveriesOf(server, endpoint.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3 });
    expect(delivery.history.map((attempt: { outcome: string }) => attempt.outcome)).toEqual(['http_error', 'http_error', 'delivered']);
  });

  it('gives up after the last attempt, about three days later', async () => {
    const endpoint = await createEndpoint(server);
    receiver.script({ status: 503 });
    await recordAction(server);
    const started = clock.now();
    for (let attempt = 1; attempt <= maxAttempts + 2; attempt++) {
      await server.app.deliveries.deliverDue();
      clock.advance(retryDelaysMs[Math.min(attempt, retryDelaysMs.length) - 1]! * 1.2 + 1);
    }
    expect(receiver.received).toHaveLength(maxAttempts);
    const [delivery] = await deliveriesOf(server, endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: maxAttempts, next_attempt_at: null });
    const total = retryDelaysMs.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3_600_000).toBeGreaterThan(60);
    expect(total / 3_600_000).toBeLessThan(80);
    expect(clock.now() - started).toBeGreaterThan(total * 0.8);
  });

  it('treats a 302 as a failure and never follows it', async () => {
    const elsewhere = await startReceiver({ status: 200 });
    try {
      const endpoint = await createEndpoint(server);
      receiver.script({ status: 302, headers: { location: elsewhere.url } });
      await recordAction(server);
      await server.app.deliveries.deliverDue();
      expect(elsewhere.received).toHaveLength(0);
      const [delivery] = await deliveriesOf(server, endpoint.id);
      expect(delivery).toMatchObject({ status: 'pending', history: [{ outcome: 'redirect', status_code: 302 }] });
    } finally {
      await elsewhere.close();
    }
  });

  it('gives up on a receiver that does not answer within the timeout, and retries', async () => {
    await startAfresh({ deliveries: { timeoutMs: 200 } });
    const endpoint = await createEndpoint(server);
    receiver.script({ status: 200, hang: true });
    await recordAction(server);
    await server.app.deliveries.deliverDue();
    const [delivery] = await deliveriesOf(server, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, history: [{ outcome: 'timeout', status_code: null }] });
  });

  it('holds at most `concurrency` deliveries in flight', async () => {
    await startAfresh({ deliveries: { timeoutMs: 300, concurrency: 2 } });
    const endpoint = await createEndpoint(server);
    // A first attempt each (refused at once), then all five are due together and the receiver holds them.
    receiver.script({ status: 500 });
    for (const key of ['k-1', 'k-2', 'k-3', 'k-4', 'k-5']) await recordAction(server, key);
    await server.app.deliveries.deliverDue();
    receiver.script({ status: 200, hang: true });
    clock.advance(10_000);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(10);
    expect(receiver.maxOpen()).toBe(2);
    expect((await deliveriesOf(server, endpoint.id)).map((delivery: { history: { outcome: string }[] }) => delivery.history[1]!.outcome)).toEqual(Array(5).fill('timeout'));
  });

  it('records nothing for a delivery whose endpoint was deleted while its request was out', async () => {
    await startAfresh({ deliveries: { timeoutMs: 300 } });
    const endpoint = await createEndpoint(server);
    receiver.script({ status: 200, hang: true });
    await recordAction(server);
    const delivering = server.app.deliveries.deliverDue();
    while (receiver.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await server.request('DELETE', `${endpoints}/${endpoint.id}`)).status).toBe(204);
    await delivering;
    expect(server.db.prepare('SELECT (SELECT count(*) FROM webhook_outbox) + (SELECT count(*) FROM webhook_attempts) AS n').get()).toEqual({ n: 0 });
  });

  it('disables the endpoint on 410 Gone and sends it nothing more', async () => {
    const endpoint = await createEndpoint(server);
    receiver.script({ status: 410 });
    await recordAction(server, 'k-1');
    await server.app.deliveries.deliverDue();
    expect((await server.request('GET', `${endpoints}/${endpoint.id}`)).body).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    expect((await deliveriesOf(server, endpoint.id))[0]).toMatchObject({ status: 'failed', history: [{ outcome: 'gone', status_code: 410 }] });
    await recordAction(server, 'k-2');
    clock.advance(86_400_000);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(1);
  });

  it('honours Retry-After on 429: not a second before it', async () => {
    const endpoint = await createEndpoint(server);
    receiver.script({ status: 429, headers: { 'retry-after': '120' } }, { status: 200 });
    await recordAction(server);
    await server.app.deliveries.deliverDue();
    const [delivery] = await deliveriesOf(server, endpoint.id);
    expect(delivery.next_attempt_at).toBe(new Date(clock.now() + 120_000).toISOString());
    clock.advance(119_999);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(1);
    clock.advance(1);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(2);
  });

  it('keeps at most 1 KiB of the answer as well-formed UTF-8', async () => {
    const endpoint = await createEndpoint(server);
    // 1 + 2 × 600 bytes: the 1024th byte is the first half of an "é".
    receiver.script({ status: 500, body: Buffer.from(`x${'é'.repeat(600)}`, 'utf8') });
    await recordAction(server);
    await server.app.deliveries.deliverDue();
    const [delivery] = await deliveriesOf(server, endpoint.id);
    const excerpt: string = delivery.history[0].response_excerpt;
    expect(Buffer.byteLength(excerpt)).toBe(1023);
    expect(excerpt.isWellFormed() && !excerpt.includes('\ufffd')).toBe(true);
  });

  it('sends a test delivery at once, whatever the subscriptions, and never retries it', async () => {
    const endpoint = await createEndpoint(server, { event_types: ['event.purchase'] });
    receiver.script({ status: 500 });
    const tested = await server.request('POST', `${endpoints}/${endpoint.id}/test`);
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body).toMatchObject({ type: 'webhook.test', status: 'failed', attempts: 1, history: [{ outcome: 'http_error', status_code: 500 }] });
    expect(verifyDelivery(endpoint.secret, receiver.received[0]!, nowSeconds())).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpoint.id } });
    clock.advance(86_400_000);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(1);
  });

  it('pages the history newest first; limit 1-100', async () => {
    const endpoint = await createEndpoint(server);
    for (const key of ['k-1', 'k-2', 'k-3']) {
      await recordAction(server, key);
      clock.advance(1);
    }
    const history = `${endpoints}/${endpoint.id}/deliveries`;
    const first = await server.request('GET', `${history}?limit=2`);
    expect(first.body.deliveries).toHaveLength(2);
    const second = await server.request('GET', `${history}?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ deliveries: [expect.anything()], next_cursor: null });
    const all = [...first.body.deliveries, ...second.body.deliveries].map((delivery: { created_at: string }) => delivery.created_at);
    expect(all).toEqual([...all].sort().reverse());
    expect((await server.request('GET', `${history}?limit=100`)).status).toBe(200);
    expectFlatError(await server.request('GET', `${history}?limit=101`), 400, 'invalid_param', ['/limit']);
    expectFlatError(await server.request('GET', `${history}?limit=0`), 400, 'invalid_param', ['/limit']);
    expectFlatError(await server.request('GET', `${history}?cursor=forged`), 400, 'invalid_param', ['/cursor']);
  });

  it('sends nothing unsigned when the sealed secret cannot be opened', async () => {
    const endpoint = await createEndpoint(server);
    // What a replaced DATA_DIR/secrets.key amounts to: the stored secret was sealed under another key.
    const sealedElsewhere = sealSecret(makeTempDir(), cryptoRandom, cryptoRandom.bytes(24), endpoint.id);
    server.db.prepare('UPDATE webhook_endpoints SET secret_sealed = ? WHERE id = ?').run(sealedElsewhere, endpoint.id);
    const tested = await server.request('POST', `${endpoints}/${endpoint.id}/test`);
    expect(tested.body).toMatchObject({ status: 'failed', history: [{ outcome: 'secret_unavailable', status_code: null }] });
    expect(receiver.received).toHaveLength(0);
  });

  it('counts the outbox depth and the outcomes in /metrics', async () => {
    await createEndpoint(server);
    receiver.script({ status: 500 }, { status: 204 });
    await recordAction(server);
    await server.app.deliveries.deliverDue();
    let metrics = (await server.request('GET', '/metrics')).text;
    expect(metrics).toContain('sightline_webhook_outbox_depth 1');
    expect(metrics).toContain('sightline_webhook_deliveries_total{outcome="http_error"} 1');
    clock.advance(10_000);
    await server.app.deliveries.deliverDue();
    metrics = (await server.request('GET', '/metrics')).text;
    expect(metrics).toContain('sightline_webhook_outbox_depth 0');
    expect(metrics).toContain('sightline_webhook_deliveries_total{outcome="delivered"} 1');
  });
});

describe('the outbox', () => {
  it('announces a purchase only to the endpoints that existed when it was acknowledged', async () => {
    await startAfresh({ projector: 'manual' });
    const purchase = () => ({ id: crypto.randomUUID(), site_id: 'acme-site', anon_id: 'a-1', ts: clock.iso(), type: 'purchase', url: 'https://acme.example/' });
    expect((await server.request('POST', '/events', { token: 'acme-site', headers: asBrowser, body: purchase() })).status).toBe(202);
    clock.advance(1);
    await createEndpoint(server, { event_types: ['event.purchase'] });
    expect((await server.request('POST', '/events', { token: 'acme-site', headers: asBrowser, body: purchase() })).status).toBe(202);
    server.app.projection.projectNow();
    expect(server.db.prepare('SELECT count(*) AS n FROM webhook_outbox').get()).toEqual({ n: 1 });
  });

  it('survives a restart: a delivery not yet made is made by the next server, with the same webhook-id', async () => {
    const dataDir = makeTempDir();
    await server.close();
    server = await start({ dataDir });
    await seed(server);
    const endpoint = await createEndpoint(server);
    receiver.script({ status: 503 }, { status: 204 });
    await recordAction(server);
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(1);
    await server.close();
    clock.advance(60_000);
    server = await start({ dataDir });
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    verifyDelivery(endpoint.secret, receiver.received[1]!, nowSeconds());
    expect((await deliveriesOf(server, endpoint.id))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('announces a purchase projected after a restart exactly once', async () => {
    const dataDir = makeTempDir();
    await server.close();
    server = await start({ dataDir, projector: 'manual' });
    await seed(server);
    await createEndpoint(server, { event_types: ['event.purchase'] });
    const purchase = { id: crypto.randomUUID(), site_id: 'acme-site', anon_id: 'a-1', ts: clock.iso(), type: 'purchase', url: 'https://acme.example/' };
    expect((await server.request('POST', '/events', { token: 'acme-site', headers: asBrowser, body: purchase })).status).toBe(202);
    // A batch that fails midway rolls back its outbox rows with its position.
    expect(() => server.app.projection.projectNow({ afterEvent: () => { throw new Error('crash'); } })).toThrow('crash');
    expect(server.db.prepare('SELECT count(*) AS n FROM webhook_outbox').get()).toEqual({ n: 0 });
    await server.close();
    server = await start({ dataDir, projector: 'manual' });
    server.app.projection.projectNow();
    server.app.projection.projectNow();
    await server.app.deliveries.deliverDue();
    expect(receiver.received).toHaveLength(1);
    expect(server.db.prepare('SELECT count(*) AS n FROM webhook_outbox').get()).toEqual({ n: 1 });
  });
});
