// Failed authentication is throttled per client address, over HTTP against the real app: every family of secret
// (UI sign-in, admin bearer, API key, ingest key, share link, webhook signature, source map upload) allows a burst of
// failures, the next attempt is 429 rate_limited in the route's envelope with Retry-After, right or wrong alike, and
// after Retry-After (an injected clock, never a sleep) one more is allowed. Another address is never affected;
// successes are never counted nor clear failures; what is no guess of a secret is never counted. Then the
// throttle's memory bound and its configuration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { clientKeyOf } from '../../src/access/auth-throttle.ts';
import { FailureThrottle } from '../../src/http/failure-throttle.ts';
import { setWebhookSecret } from '../../src/webhooks/webhook-secrets.ts';
import { systemActor } from '../../src/cli/common.ts';
import type { TestResponse } from '../_http.ts';
import { makeEvent, seedWorkspace, startTestServer, type TestServer, testAdminToken } from '../_setup.ts';
import { createKey, manualClock } from '../admin/_helpers.ts';
import { uploadBody } from '../sourcemaps/_maps.ts';
import { secondsOf, secretA, signBytes, stripeEvent } from '../webhooks/_helpers.ts';

/** One failure allowed again every 10 s, three at once. */
const perMinute = 6;
const burst = 3;
const refillMs = 60_000 / perMinute;

const clock = manualClock('2026-03-01T12:00:00.000Z');
let server: TestServer;
const keys: Record<'read' | 'ingest', string> = { read: '', ingest: '' };
let shareToken = '';

beforeAll(async () => {
  server = await startTestServer({ clock, env: { TRUST_PROXY: '1', AUTH_FAILURES_PER_MINUTE: String(perMinute), AUTH_FAILURE_BURST: String(burst) } });
  await seedWorkspace(server, 'acme', { sites: ['blog', 'shop'] });
  keys.read = (await createKey(server, 'acme', ['query:read'])).plaintext;
  keys.ingest = (await createKey(server, 'acme', ['ingest:write'])).plaintext;
  shareToken = (await server.request('POST', '/v1/sites/blog/share-links', { body: { label: 'public' } })).body.token;
  setWebhookSecret(server.app.context, systemActor, 'shop', { adapter: 'stripe', secret: secretA });
});
afterAll(() => server.close());

let addressCounter = 0;
/** A client address of its own (behind TRUST_PROXY=1 the rightmost X-Forwarded-For entry is the client). */
const freshAddress = () => `198.51.100.${++addressCounter}`;
const from = (address: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...headers });

const report = '/v1/sites/blog/reports/summary-v2?from=2026-03-01&to=2026-03-01';
const unissuedKey = 'sk_acme_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const unissuedShare = `shr_${'A'.repeat(43)}`;
const sourcemap = () => uploadBody('1.0.0', 'app.js', JSON.stringify({ version: 3, sources: ['a.ts'], names: [], mappings: 'AAAA' }));

function webhook(address: string, secret: string): Promise<TestResponse> {
  const t = secondsOf(clock.now());
  const bytes = Buffer.from(JSON.stringify(stripeEvent('customer.created', { id: 'cus_1', object: 'customer' }, t)));
  return server.request('POST', '/v1/webhooks/stripe/shop', {
    token: null,
    rawBody: bytes,
    headers: from(address, { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${signBytes(bytes, secret, t)}` }),
  });
}

interface Family {
  name: string;
  envelope: 'structured' | 'flat';
  /** A failed attempt and its refusal. */
  wrong: (address: string) => Promise<TestResponse>;
  refused: [number, string];
  /** The right credential and its success status. */
  right: (address: string) => Promise<TestResponse>;
  accepted: number;
}

const families: Family[] = [
  {
    name: 'UI sign-in (POST /v1/ui/session)',
    envelope: 'structured',
    wrong: (address) => server.request('POST', '/v1/ui/session', { token: null, headers: from(address), body: { token: 'not-the-admin-token-000' } }),
    refused: [401, 'unauthorized'],
    right: (address) => server.request('POST', '/v1/ui/session', { token: null, headers: from(address), body: { token: testAdminToken } }),
    accepted: 201,
  },
  {
    name: 'admin bearer (GET /v1/workspaces)',
    envelope: 'flat',
    wrong: (address) => server.request('GET', '/v1/workspaces', { token: `${testAdminToken}x`, headers: from(address) }),
    refused: [401, 'unauthorized'],
    right: (address) => server.request('GET', '/v1/workspaces', { token: testAdminToken, headers: from(address) }),
    accepted: 200,
  },
  {
    name: 'API key bearer (a V2 report)',
    envelope: 'structured',
    wrong: (address) => server.request('GET', report, { token: unissuedKey, headers: from(address) }),
    refused: [401, 'unauthorized'],
    right: (address) => server.request('GET', report, { token: keys.read, headers: from(address) }),
    accepted: 200,
  },
  {
    name: 'ingest API key (POST /v1/s2s/events)',
    envelope: 'structured',
    wrong: (address) => server.request('POST', '/v1/s2s/events', { token: unissuedKey, headers: from(address, { 'x-site-id': 'blog' }), body: makeEvent('blog', { ts: clock.iso() }) }),
    refused: [401, 'unauthorized'],
    right: (address) => server.request('POST', '/v1/s2s/events', { token: keys.ingest, headers: from(address, { 'x-site-id': 'blog' }), body: makeEvent('blog', { ts: clock.iso() }) }),
    accepted: 202,
  },
  {
    name: 'share-link token (a V2 report)',
    envelope: 'structured',
    wrong: (address) => server.request('GET', report, { token: null, headers: from(address, { authorization: `Share ${unissuedShare}` }) }),
    refused: [401, 'unauthorized'],
    right: (address) => server.request('GET', report, { token: null, headers: from(address, { authorization: `Share ${shareToken}` }) }),
    accepted: 200,
  },
  {
    name: 'inbound webhook signature (POST /v1/webhooks/stripe/:siteId)',
    envelope: 'flat',
    wrong: (address) => webhook(address, 'whsec_notTheSecretOfThisSite000000000000000'),
    refused: [400, 'invalid_signature'],
    right: (address) => webhook(address, secretA),
    accepted: 200,
  },
  {
    name: 'source map upload bearer (POST /v1/sites/:siteId/sourcemaps)',
    envelope: 'structured',
    wrong: (address) => server.request('POST', '/v1/sites/blog/sourcemaps', { token: unissuedKey, headers: from(address), body: sourcemap() }),
    refused: [401, 'unauthorized'],
    right: (address) => server.request('POST', '/v1/sites/blog/sourcemaps', { token: keys.ingest, headers: from(address), body: sourcemap() }),
    accepted: 201,
  },
];

function expectCode(response: TestResponse, [status, code]: [number, string], envelope: Family['envelope']): void {
  expect(response.status, response.text).toBe(status);
  expect(envelope === 'flat' ? response.body.error : response.body.error.code, response.text).toBe(code);
}

function expectThrottled(response: TestResponse, envelope: Family['envelope'], retryAfter: string): void {
  expectCode(response, [429, 'rate_limited'], envelope);
  expect(response.headers.get('retry-after')).toBe(retryAfter);
}

describe.each(families)('$name', (family) => {
  it('the last allowed failure is refused as usual, the next is 429 with Retry-After, right credential or wrong', async () => {
    const address = freshAddress();
    for (let attempt = 1; attempt <= burst; attempt++) expectCode(await family.wrong(address), family.refused, family.envelope);
    expectThrottled(await family.wrong(address), family.envelope, '10');
    // Letting the right credential through here would tell a guesser which guess was right: it is refused unread.
    expectThrottled(await family.right(address), family.envelope, '10');
  });

  it('another address is unaffected: its right credential passes, its own failures start from a full burst', async () => {
    const throttled = freshAddress();
    for (let attempt = 0; attempt <= burst; attempt++) await family.wrong(throttled);
    expectThrottled(await family.wrong(throttled), family.envelope, '10');
    const other = freshAddress();
    expect((await family.right(other)).status).toBe(family.accepted);
    for (let attempt = 1; attempt <= burst; attempt++) expectCode(await family.wrong(other), family.refused, family.envelope);
  });

  it('after Retry-After one more failure is allowed (not a millisecond before), then 429 again', async () => {
    const address = freshAddress();
    for (let attempt = 1; attempt <= burst; attempt++) await family.wrong(address);
    clock.advance(refillMs - 1);
    expectThrottled(await family.wrong(address), family.envelope, '1');
    clock.advance(1);
    expectCode(await family.wrong(address), family.refused, family.envelope);
    expectThrottled(await family.wrong(address), family.envelope, '10');
    clock.advance(refillMs);
    expect((await family.right(address)).status).toBe(family.accepted);
  });

  it('a success is neither counted nor clears earlier failures', async () => {
    const address = freshAddress();
    for (let attempt = 0; attempt < burst * 3; attempt++) expect((await family.right(address)).status).toBe(family.accepted);
    for (let attempt = 1; attempt < burst; attempt++) expectCode(await family.wrong(address), family.refused, family.envelope);
    expect((await family.right(address)).status).toBe(family.accepted);
    expectCode(await family.wrong(address), family.refused, family.envelope);
    expectThrottled(await family.wrong(address), family.envelope, '10');
  });
});

describe('one allowance per address', () => {
  it('is shared by every family: failures spread over them are throttled together', async () => {
    const address = freshAddress();
    for (const family of families.slice(0, burst)) expectCode(await family.wrong(address), family.refused, family.envelope);
    for (const family of families) expectThrottled(await family.wrong(address), family.envelope, '10');
  });

  it('webhooks: a site without a secret (401, the same as a missing site) counts as a refused signature does', async () => {
    const address = freshAddress();
    const post = (site: string) => server.request('POST', `/v1/webhooks/stripe/${site}`, { token: null, rawBody: '{}', headers: from(address, { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }) });
    for (const site of ['blog', 'no-such-site', 'blog']) expectCode(await post(site), [401, 'unauthorized'], 'flat');
    expectThrottled(await webhook(address, secretA), 'flat', '10');
    // An adapter that does not exist is a 404 before anything secret: neither counted nor throttled.
    expect((await server.request('POST', '/v1/webhooks/paypal/shop', { token: null, rawBody: '{}', headers: from(address, { 'content-type': 'application/json' }) })).status).toBe(404);
  });

  it('without TRUST_PROXY, a client cannot step to a fresh allowance by writing X-Forwarded-For', async () => {
    const direct = await startTestServer({ clock, env: { AUTH_FAILURE_BURST: String(burst) } });
    try {
      const attempt = (index: number) => direct.request('GET', '/v1/workspaces', { token: 'wrong-token-0000000000', headers: { 'x-forwarded-for': `203.0.113.${index}` } });
      for (let index = 1; index <= burst; index++) expect((await attempt(index)).status).toBe(401);
      expect((await attempt(burst + 1)).status).toBe(429);
    } finally {
      await direct.close();
    }
  });

  it('IPv6 addresses of one /64 share an allowance; another /64 has its own', async () => {
    const wrong = (address: string) => server.request('GET', '/v1/workspaces', { token: 'wrong-token-0000000000', headers: from(address) });
    for (let index = 1; index <= burst; index++) expect((await wrong(`2001:db8:aa:1::${index}`)).status).toBe(401);
    expect((await wrong('2001:db8:aa:1:ffff:ffff:ffff:ffff')).status).toBe(429);
    expect((await wrong('2001:db8:aa:2::1')).status).toBe(401);
    expect(clientKeyOf('2001:DB8:aa:1:0:0:0:9')).toBe('ip:2001:db8:aa:1::/64');
    expect(clientKeyOf('64:ff9b::192.0.2.1')).toBe('ip:64:ff9b:0:0::/64');
    expect(clientKeyOf('::1')).toBe('ip:0:0:0:0::/64');
    expect(clientKeyOf('192.0.2.1')).toBe('ip:192.0.2.1');
  });
});

describe('what is no guess of a secret is never counted nor throttled', () => {
  it('requests without a credential stay 401, however many', async () => {
    const address = freshAddress();
    for (let attempt = 0; attempt < burst * 3; attempt++) expect((await server.request('GET', '/v1/workspaces', { token: null, headers: from(address) })).status).toBe(401);
    expect((await server.request('GET', '/v1/workspaces', { token: testAdminToken, headers: from(address) })).status).toBe(200);
  });

  it('site-id bearers on /events (public: they sit in every tracked page) are neither counted nor refused 429', async () => {
    const address = freshAddress();
    for (let attempt = 0; attempt < burst * 3; attempt++) {
      expect((await server.request('POST', '/v1/events', { token: `no-such-site-${attempt}`, headers: from(address), body: makeEvent('blog', { ts: clock.iso() }) })).status).toBe(401);
    }
    for (let attempt = 0; attempt <= burst; attempt++) await server.request('GET', '/v1/workspaces', { token: 'wrong-token-0000000000', headers: from(address) });
    expect((await server.request('GET', '/v1/workspaces', { token: testAdminToken, headers: from(address) })).status).toBe(429);
    // Throttled for secrets, the address still sends its visitors' events by the site id.
    expect((await server.request('POST', '/v1/events', { token: 'blog', headers: from(address), body: makeEvent('blog', { ts: clock.iso() }) })).status).toBe(202);
  });

  it('a browser signed in before its address was throttled keeps working with its session cookie', async () => {
    const address = freshAddress();
    const signedIn = await server.request('POST', '/v1/ui/session', { token: null, headers: from(address), body: { token: testAdminToken } });
    const cookie = /^(sightline_session=[^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')![1]!;
    for (let attempt = 0; attempt < burst; attempt++) await server.request('POST', '/v1/ui/session', { token: null, headers: from(address), body: { token: 'not-the-admin-token-000' } });
    expect((await server.request('POST', '/v1/ui/session', { token: null, headers: from(address), body: { token: testAdminToken } })).status).toBe(429);
    expect((await server.request('GET', '/v1/workspaces', { token: null, headers: from(address, { cookie }) })).status).toBe(200);
  });
});

describe('ingest: only a bearer that can be an API key is a guess', () => {
  it('REQUIRE_API_KEY=require: sk_ bearers are counted, other bearers (never a key) are not', async () => {
    const strict = await startTestServer({ clock, env: { REQUIRE_API_KEY: 'require', AUTH_FAILURE_BURST: String(burst) } });
    try {
      await seedWorkspace(strict, 'acme', { sites: ['blog'] });
      const post = (token: string) => strict.request('POST', '/v1/events', { token, headers: { 'x-site-id': 'blog' }, body: makeEvent('blog', { ts: clock.iso() }) });
      for (let attempt = 0; attempt < burst * 3; attempt++) expect((await post('blog')).status).toBe(401);
      for (let attempt = 1; attempt <= burst; attempt++) expect((await post(unissuedKey)).status).toBe(401);
      const throttled = await post(unissuedKey);
      expect([throttled.status, throttled.body.error.code, throttled.headers.get('retry-after')]).toEqual([429, 'rate_limited', '6']);
      expect(throttled.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await strict.close();
    }
  });

  it('REQUIRE_API_KEY=tag: a throttled address still reaches a site whose id starts with sk_ by that id', async () => {
    const tagged = await startTestServer({ clock, env: { REQUIRE_API_KEY: 'tag', AUTH_FAILURE_BURST: String(burst) } });
    try {
      await seedWorkspace(tagged, 'acme', { sites: ['sk_lookalike'] });
      const post = (token: string) => tagged.request('POST', '/v1/events', { token, body: makeEvent('sk_lookalike', { ts: clock.iso() }) });
      expect((await post('sk_lookalike')).status).toBe(202);
      for (let attempt = 1; attempt <= burst; attempt++) expect((await post(unissuedKey)).status).toBe(401);
      expect((await post(unissuedKey)).status).toBe(429);
      expect((await post('sk_lookalike')).status).toBe(202);
    } finally {
      await tagged.close();
    }
  });
});

describe('FailureThrottle', () => {
  it('keeps at most maxKeys keys, forgetting the least recently failed first', () => {
    const own = manualClock();
    const throttle = new FailureThrottle({ failuresPerMinute: 1, burst: 1, clock: own, maxKeys: 3 });
    for (const key of ['a', 'b', 'c']) throttle.recordFailure(key);
    throttle.recordFailure('a');
    expect(throttle.size).toBe(3);
    throttle.recordFailure('d');
    expect(throttle.size).toBe(3);
    expect(throttle.check('b')).toEqual({ allowed: true });
    for (const key of ['a', 'c', 'd']) expect(throttle.check(key).allowed, key).toBe(false);
  });

  it('forgets a bucket once it has refilled: idle addresses hold no memory', () => {
    const own = manualClock();
    const throttle = new FailureThrottle({ failuresPerMinute: 6, burst: 2, clock: own });
    throttle.recordFailure('ip:192.0.2.1');
    throttle.recordFailure('ip:192.0.2.1');
    own.advance(2 * refillMs - 1);
    throttle.recordFailure('ip:192.0.2.2');
    expect(throttle.size).toBe(2);
    own.advance(1);
    throttle.recordFailure('ip:192.0.2.3');
    expect(throttle.size).toBe(2);
    expect(throttle.check('ip:192.0.2.1')).toEqual({ allowed: true });
  });

  it('takes any key: an account is throttled apart from an address', () => {
    const throttle = new FailureThrottle({ failuresPerMinute: 6, burst: 1, clock: manualClock() });
    throttle.recordFailure('account:42');
    expect(throttle.check('account:42')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(throttle.check('ip:192.0.2.1')).toEqual({ allowed: true });
  });
});

describe('configuration', () => {
  it.each([
    [{}, 10, 20],
    [{ AUTH_FAILURES_PER_MINUTE: '1', AUTH_FAILURE_BURST: '1' }, 1, 1],
    [{ AUTH_FAILURES_PER_MINUTE: '1000000', AUTH_FAILURE_BURST: '1000000' }, 1_000_000, 1_000_000],
  ])('%o → %i per minute, burst %i', (env, perMinuteExpected, burstExpected) => {
    const config = loadConfig(env);
    expect([config.authFailuresPerMinute, config.authFailureBurst]).toEqual([perMinuteExpected, burstExpected]);
  });

  it.each([
    { AUTH_FAILURES_PER_MINUTE: '0' },
    { AUTH_FAILURES_PER_MINUTE: '1000001' },
    { AUTH_FAILURE_BURST: '0' },
    { AUTH_FAILURE_BURST: '2.5' },
  ])('refuses %o', (env) => {
    expect(() => loadConfig(env)).toThrow(/AUTH_FAILURE/);
  });
});
