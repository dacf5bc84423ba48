// The stripe adapter's signature check over HTTP, against headers made by the `stripe` package's own test helper:
// extra v1 entries, one changed byte, a wrong length, the 5-minute tolerance at its edges both ways, and rotation
// inside and after the one-hour overlap. The clock is passed in: no timing decides a test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, settledTableCounts, startTestServer, type TestServer } from '../_setup.ts';
import { expectFlatError, manualClock, prefixes } from '../admin/_helpers.ts';
import { systemActor } from '../../src/cli/common.ts';
import { rotationOverlapMs, setWebhookSecret } from '../../src/webhooks/webhook-secrets.ts';
import { charge, postWebhook, secondsOf, secretA, secretB, signBytes, stripeEvent, stripeHeader } from './_helpers.ts';

const clock = manualClock('2026-03-01T12:00:00.000Z');
let server: TestServer;

beforeAll(async () => {
  // Dozens of refused signatures from one address: the throttle of failures (test/http/auth-throttle.test.ts) is
  // opened wide so that each refusal here is the signature check's own.
  server = await startTestServer({ clock, env: { AUTH_FAILURE_BURST: '1000000' } });
  await seedWorkspace(server, 'ws-sig', { sites: ['shop', 'rotating'] });
  setWebhookSecret(server.app.context, systemActor, 'shop', { adapter: 'stripe', secret: secretA });
});
afterAll(() => server.close());

/** A fresh charge.succeeded event created now, as the text Stripe would send. */
const freshPayload = () => JSON.stringify(stripeEvent('charge.succeeded', charge(), secondsOf(clock.now())));
const now = () => secondsOf(clock.now());

describe.each(prefixes)('%s/webhooks/stripe/:siteId signatures', (prefix) => {
  const path = `${prefix}/webhooks/stripe/shop`;

  it('accepts a header signed by the stripe package', async () => {
    const payload = freshPayload();
    const answer = await postWebhook(server, path, payload, stripeHeader(payload, secretA, now()));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ ok: true, forwarded: 1 });
  });

  it('accepts one right v1 among wrong ones, and ignores other schemes', async () => {
    const payload = freshPayload();
    const right = stripeHeader(payload, secretA, now()).split(',v1=')[1]!;
    const wrong = stripeHeader(payload, secretB, now()).split(',v1=')[1]!;
    const header = `t=${now()},v0=${right},v1=${wrong},v1=${'0'.repeat(64)},v1=${right},v1=short`;
    expect((await postWebhook(server, path, payload, header)).status).toBe(200);
  });

  it.each([
    ['no header', () => undefined],
    ['no v1 entry (v0 only, even a right one)', (payload: string) => stripeHeader(payload, secretA, now()).replace('v1=', 'v0=')],
    ['no timestamp', (payload: string) => stripeHeader(payload, secretA, now()).replace(/^t=\d+,/, '')],
    ['two timestamps', (payload: string) => `t=${now()},${stripeHeader(payload, secretA, now())}`],
    ['a timestamp that is not an integer', (payload: string) => stripeHeader(payload, secretA, now()).replace(/^t=(\d+)/, 't=$1.5')],
    ['a signature of the wrong length (short)', () => `t=${now()},v1=abc`],
    ['a signature of the wrong length (long)', (payload: string) => `${stripeHeader(payload, secretA, now())}00`],
    ['an empty signature', () => `t=${now()},v1=`],
    ['the signature of another secret', (payload: string) => stripeHeader(payload, secretB, now())],
    ['a header past 4096 characters', (payload: string) => `${stripeHeader(payload, secretA, now())},v0=${'a'.repeat(4096)}`],
  ])('refuses %s with 400 invalid_signature and stores nothing', async (_name, makeHeader) => {
    const payload = freshPayload();
    const before = await settledTableCounts(server);
    const answer = await postWebhook(server, path, payload, makeHeader(payload));
    expectFlatError(answer, 400, 'invalid_signature');
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it('refuses a body with one changed byte', async () => {
    const payload = freshPayload();
    const header = stripeHeader(payload, secretA, now());
    const changed = Buffer.from(payload);
    const at = changed.indexOf('1999');
    changed[at + 3] = '8'.charCodeAt(0);
    expectFlatError(await postWebhook(server, path, changed, header), 400, 'invalid_signature');
    // The same header with the body as signed passes: only that byte differed.
    expect((await postWebhook(server, path, payload, header)).status).toBe(200);
  });

  it.each([
    [300, 200],
    [301, 400],
    [-300, 200],
    [-301, 400],
  ])('a signature %i s old (negative: ahead) answers %i', async (ageSeconds, status) => {
    const payload = freshPayload();
    const answer = await postWebhook(server, path, payload, stripeHeader(payload, secretA, now() - ageSeconds));
    if (status === 200) expect(answer.status, answer.text).toBe(200);
    else expectFlatError(answer, 400, 'invalid_signature');
  });

  it('signs the raw bytes: a body re-encoded differently does not pass', async () => {
    const payload = freshPayload();
    const header = stripeHeader(payload, secretA, now());
    const reformatted = JSON.stringify(JSON.parse(payload), null, 2);
    expectFlatError(await postWebhook(server, path, reformatted, header), 400, 'invalid_signature');
    // Bytes signed by hand (our own HMAC of the exact bytes) agree with the stripe helper's.
    expect(header).toBe(`t=${now()},v1=${signBytes(Buffer.from(payload), secretA, now())}`);
  });
});

describe('rotation', () => {
  it('keeps the previous secret valid for one hour after a rotation, then refuses it', async () => {
    const path = '/v1/webhooks/stripe/rotating';
    setWebhookSecret(server.app.context, systemActor, 'rotating', { adapter: 'stripe', secret: secretA });
    clock.advance(10 * 60_000);
    const rotated = setWebhookSecret(server.app.context, systemActor, 'rotating', { adapter: 'stripe', secret: secretB });
    const rotatedAt = clock.now();
    expect(rotated).toMatchObject({ rotated: true, previous_valid_until: new Date(rotatedAt + rotationOverlapMs).toISOString() });

    const post = (secret: string) => {
      const payload = freshPayload();
      return postWebhook(server, path, payload, stripeHeader(payload, secret, now()));
    };
    // Right after, and the last millisecond of the hour: both secrets pass.
    expect((await post(secretA)).status).toBe(200);
    expect((await post(secretB)).status).toBe(200);
    clock.advance(rotationOverlapMs - 1);
    expect((await post(secretA)).status).toBe(200);
    // The hour is over: the old secret is refused, the new one still passes.
    clock.advance(1);
    expectFlatError(await post(secretA), 400, 'invalid_signature');
    expect((await post(secretB)).status).toBe(200);

    // A second rotation replaces the previous secret: only the one just replaced (B) overlaps, never A again.
    setWebhookSecret(server.app.context, systemActor, 'rotating', { adapter: 'stripe', secret: `${secretA}x` });
    expect((await post(secretB)).status).toBe(200);
    expectFlatError(await post(secretA), 400, 'invalid_signature');
    expect((await post(`${secretA}x`)).status).toBe(200);
  });

  it('audits every set and rotation without the secret', async () => {
    const audit = await server.request('GET', '/v1/workspaces/ws-sig/audit?limit=500');
    expect(audit.status, audit.text).toBe(200);
    const rows = (audit.body.entries as { action: string; target: string; metadata: Record<string, unknown> }[]).filter((row) => row.action === 'webhook_secret.set');
    expect(rows.filter((row) => row.target === 'rotating').map((row) => row.metadata.rotated)).toEqual([true, true, false]);
    expect(rows[0]).toMatchObject({ actor_kind: 'system', target: 'rotating', metadata: { adapter: 'stripe', rotated: true } });
    expect(audit.text).not.toContain('whsec_');
  });
});
