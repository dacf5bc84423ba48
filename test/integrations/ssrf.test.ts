// The SSRF guard: the address matrix, the URL forms that hide an address, a lookup whose answer changes, and one
// delivery through a host name that resolves to 127.0.0.1, refused at connect with the guard on. What a workspace
// admin is told of it: a target the guard refuses, a host name that does not resolve and a closed port read the same
// in the test answer and the history (no address, no DNS error), while the server's log has the detail.
import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { consola, type ConsolaReporter } from 'consola';
import { afterEach, describe, expect, it } from 'vitest';
import { unreachableExcerpt } from '../../src/integrations/public-failure.ts';
import { insertAttempt } from '../../src/integrations/queries/attempt-rows.ts';
import { guardedLookup, isRefusedAddress } from '../../src/integrations/address-guard.ts';
import { sendWebhook } from '../../src/integrations/send-webhook.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { expectFlatError, manualClock } from '../admin/_helpers.ts';
import { type Receiver, startReceiver } from './_receiver.ts';

describe('the address check', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.1.1',
    '169.254.169.254', '169.254.0.1', '0.0.0.0', '0.1.2.3', '100.64.0.1', '100.127.255.255', '224.0.0.1', '255.255.255.255',
    '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1',
    '::ffff:169.254.169.254', '::ffff:10.0.0.1', '0:0:0:0:0:ffff:c0a8:0101', '::127.0.0.1', '64:ff9b::a9fe:a9fe', '[::1]',
    'localhost', '', 'not-an-address',
  ])('refuses %s', (address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.15.255.255', '172.32.0.0', '100.63.255.255', '100.128.0.0', '169.253.255.255', '11.0.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'allows the public address %s',
    (address) => {
      expect(isRefusedAddress(address)).toBe(false);
    },
  );

  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
  ])('reads %s as %s, which is refused', (url, host) => {
    const hostname = new URL(url).hostname;
    expect(hostname).toBe(host);
    expect(isRefusedAddress(hostname)).toBe(true);
  });
});

describe('the lookup used to connect', () => {
  const answering = (...answers: LookupAddress[][]) => {
    let call = 0;
    return ((_hostname: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) => callback(null, answers[Math.min(call++, answers.length - 1)]!)) as never;
  };
  const resolveWith = (lookup: ReturnType<typeof guardedLookup>, all: boolean) =>
    new Promise<{ error: Error | null; result: unknown }>((resolve) => lookup('hooks.example', { all } as never, ((error: Error | null, result: unknown) => resolve({ error, result })) as never));

  it('refuses the name when its answer changes to a private address between two connects (rebinding)', async () => {
    const lookup = guardedLookup(answering([{ address: '93.184.216.34', family: 4 }], [{ address: '169.254.169.254', family: 4 }]));
    expect((await resolveWith(lookup, true)).result).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect((await resolveWith(lookup, true)).error?.message).toContain('169.254.169.254');
  });

  it('answers a single address when asked for one, as Node expects', async () => {
    const lookup = guardedLookup(answering([{ address: '93.184.216.34', family: 4 }]));
    const answer = await new Promise<unknown[]>((resolve) => lookup('hooks.example', {} as never, ((...args: unknown[]) => resolve(args)) as never));
    expect(answer).toEqual([null, '93.184.216.34', 4]);
  });

  it('refuses a name whose answer mixes public and private addresses', async () => {
    const lookup = guardedLookup(answering([{ address: '93.184.216.34', family: 4 }, { address: '::1', family: 6 }]));
    expect((await resolveWith(lookup, false)).error?.message).toContain('::1');
  });
});

describe('a delivery with the guard on', () => {
  let receiver: Receiver | undefined;
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    await receiver?.close();
  });

  it('is refused at connect through localhost (127.0.0.1), and sent with ALLOW_PRIVATE_WEBHOOK_TARGETS', async () => {
    receiver = await startReceiver({ status: 204 });
    const url = receiver.url.replace('127.0.0.1', 'localhost');
    const refused = await sendWebhook({ url, headers: {}, body: '{}', timeoutMs: 2_000, allowPrivate: false });
    expect(refused).toMatchObject({ kind: 'failed', reason: 'address_refused' });
    const literal = await sendWebhook({ url: receiver.url.replace('127.0.0.1', '2130706433'), headers: {}, body: '{}', timeoutMs: 2_000, allowPrivate: false });
    expect(literal).toMatchObject({ kind: 'failed', reason: 'address_refused' });
    expect(receiver.received).toHaveLength(0);
    const allowed = await sendWebhook({ url, headers: {}, body: '{}', timeoutMs: 2_000, allowPrivate: true });
    expect(allowed).toMatchObject({ kind: 'answered', statusCode: 204 });
  });

  it('refuses in the lookup itself: no connection is even opened', async () => {
    let connections = 0;
    const listener = createServer((_request, response) => response.end());
    listener.on('connection', () => connections++);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (listener.address() as AddressInfo).port;
      for (const host of ['localhost', '127.0.0.1', '2130706433', '[::ffff:127.0.0.1]']) {
        const refused = await sendWebhook({ url: `http://${host}:${port}/`, headers: {}, body: '{}', timeoutMs: 2_000, allowPrivate: false });
        expect(refused, host).toMatchObject({ kind: 'failed', reason: 'address_refused' });
      }
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  it('records the refusal in the history, and the endpoint API refuses a private IP literal at once', async () => {
    receiver = await startReceiver({ status: 204 });
    const clock = manualClock();
    server = await startTestServer({ clock });
    await seedWorkspace(server, 'acme', { sites: ['acme-site'] });
    const endpoints = '/v1/workspaces/acme/integrations/endpoints';
    for (const literal of ['http://127.0.0.1/', 'http://2130706433/', 'http://[::ffff:169.254.169.254]/', 'http://10.1.2.3/']) {
      expectFlatError(await server.request('POST', endpoints, { body: { url: literal, event_types: ['event.purchase'] } }), 400, 'invalid_payload', ['/url']);
    }
    const created = await server.request('POST', endpoints, { body: { url: receiver.url.replace('127.0.0.1', 'localhost'), event_types: ['event.purchase'] } });
    expect(created.status, created.text).toBe(201);
    const tested = await server.request('POST', `${endpoints}/${created.body.id}/test`);
    expect(tested.body).toMatchObject({ status: 'failed', history: [{ outcome: 'network_error', status_code: null, response_excerpt: unreachableExcerpt }] });
    expect(receiver.received).toHaveLength(0);
  });
});

describe('what an admin is told of a target that cannot be reached', () => {
  let receiver: Receiver | undefined;
  let server: TestServer | undefined;
  const logged: string[] = [];
  const reporter: ConsolaReporter = { log: (entry) => logged.push(entry.args.map(String).join(' ')) };
  afterEach(async () => {
    consola.removeReporter(reporter);
    logged.length = 0;
    await server?.close();
    await receiver?.close();
  });

  /** Everything that could name an address or a DNS outcome, in any answer or history. */
  const revealing = /127\.0\.0\.1|::1|localhost|\.invalid|resolves|ENOTFOUND|EAI_|ECONNREFUSED|getaddrinfo|private|reserved/i;
  /** An attempt without the fields that differ from one attempt to the next. */
  const shape = ({ attempted_at: _at, latency_ms: _ms, ...rest }: Record<string, unknown>) => rest;

  it.each([
    [
      'guard on',
      {},
      (receiverUrl: string) => [
        // A name that resolves to a private address, and a name that does not resolve (.invalid never does, RFC 6761).
        ['a private target', receiverUrl.replace('127.0.0.1', 'localhost')],
        ['an unknown host', 'http://sightline-issue-24.invalid/hook'],
      ],
    ],
    [
      'private targets allowed',
      { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' },
      (receiverUrl: string) => [
        ['an unknown host', 'http://sightline-issue-24.invalid/hook'],
        // Nothing listens there once the receiver is closed: the connection is refused (ECONNREFUSED 127.0.0.1:port).
        ['a closed port', receiverUrl.replace('127.0.0.1', 'localhost')],
      ],
    ],
  ])('with the %s, answers every such test delivery alike, keeps no address or DNS error, and logs the detail', async (_name, env, targets) => {
    receiver = await startReceiver({ status: 204 });
    const receiverUrl = receiver.url;
    if ('ALLOW_PRIVATE_WEBHOOK_TARGETS' in env) await receiver.close();
    server = await startTestServer({ clock: manualClock(), env });
    await seedWorkspace(server, 'acme', { sites: ['acme-site'] });
    consola.addReporter(reporter);
    const endpoints = '/v1/workspaces/acme/integrations/endpoints';
    const attempts: Record<string, unknown>[] = [];
    for (const [what, url] of targets(receiverUrl)) {
      const created = await server.request('POST', endpoints, { body: { url, event_types: ['event.purchase'] } });
      expect(created.status, created.text).toBe(201);
      const tested = await server.request('POST', `${endpoints}/${created.body.id}/test`);
      expect(tested.status, what).toBe(200);
      expect(tested.body, what).toMatchObject({ status: 'failed', attempts: 1, history: [{ outcome: 'network_error', status_code: null, response_excerpt: unreachableExcerpt }] });
      expect(tested.text, what).not.toMatch(revealing);
      const listed = await server.request('GET', `${endpoints}/${created.body.id}/deliveries`);
      expect(listed.body.deliveries, what).toEqual([tested.body]);
      expect(listed.text, what).not.toMatch(revealing);
      // What is stored is what is shown: the detail is not kept for a later answer either.
      const stored = server.db.prepare('SELECT outcome, response_excerpt FROM webhook_attempts WHERE outbox_id = ?').all(tested.body.id);
      expect(stored, what).toEqual([{ outcome: 'network_error', response_excerpt: unreachableExcerpt }]);
      attempts.push(shape(tested.body.history[0]));
    }
    // The two causes cannot be told apart from the answers.
    expect(attempts[1]).toEqual(attempts[0]);
    // The operator's log has why: the address a name resolved to, or the DNS or connection error.
    const details = logged.filter((line) => line.startsWith('webhook delivery '));
    expect(details).toHaveLength(2);
    expect(details.join('\n')).toMatch(revealing);
    if (!('ALLOW_PRIVATE_WEBHOOK_TARGETS' in env)) expect(details[0]).toContain('resolves to 127.0.0.1');
    expect(details.some((line) => /ENOTFOUND|EAI_AGAIN/.test(line))).toBe(true);
  });

  it('shows attempts recorded before this rule, whose excerpt held the error, the same way', async () => {
    server = await startTestServer({ clock: manualClock() });
    await seedWorkspace(server, 'acme', { sites: ['acme-site'] });
    const endpoints = '/v1/workspaces/acme/integrations/endpoints';
    const created = await server.request('POST', endpoints, { body: { url: 'http://sightline-issue-24.invalid/hook', event_types: ['event.purchase'] } });
    const tested = await server.request('POST', `${endpoints}/${created.body.id}/test`);
    // Two attempts as an earlier release recorded them, on the same delivery.
    for (const [outcome, excerpt] of [
      ['address_refused', 'intranet.example resolves to 10.1.2.3, a private or reserved address'],
      ['network_error', 'getaddrinfo ENOTFOUND db.internal.example'],
    ] as const) {
      insertAttempt(server.db, { outbox_id: tested.body.id, attempted_at: '2026-01-01T00:00:00.000Z', outcome, status_code: null, latency_ms: 3, response_excerpt: excerpt });
    }
    const listed = await server.request('GET', `${endpoints}/${created.body.id}/deliveries`);
    expect(listed.body.deliveries[0].history.map(shape)).toEqual(Array(3).fill({ outcome: 'network_error', status_code: null, response_excerpt: unreachableExcerpt }));
    expect(listed.text).not.toMatch(revealing);
  });
});
