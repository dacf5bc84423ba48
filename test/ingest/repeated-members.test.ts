// Repeated member names (RFC 8259 §4) are refused at the wire boundary, over HTTP on a real SQLite file: 400
// invalid_payload with a pointer at each repeated member (array bodies prefixed by the index), at any depth and
// however the name is escaped, on every way events come in (/events, /s2s/events and their /v1 forms, the Node fast
// path and the h3 route, DLQ replay, the inbound webhook), and nothing of the batch is stored. The same name in
// sibling objects, or names that only look alike, are accepted. Issue 24: "props" twice passed the tracking plan with
// its last value while props-v2 read the first.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '../../src/cli/common.ts';
import { setWebhookSecret } from '../../src/webhooks/webhook-secrets.ts';
import { contractBundle } from '../plan/fixtures.ts';
import { charge, postWebhook, secondsOf, secretA, signBytes, stripeEvent } from '../webhooks/_helpers.ts';
import { makeEvent, makeTempDir, seedWorkspace, settledTableCounts, startTestServer, type TestServer } from '../_setup.ts';

const message = 'repeats a member name of its object (names must be unique, RFC 8259 §4)';
const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** An event's JSON text with `members` (JSON text, written as is) added after its own. */
function eventWith(members: string, overrides: Record<string, unknown> = {}): { id: string; text: string } {
  const event = makeEvent('shop', overrides);
  const text = JSON.stringify(event);
  return { id: event.id as string, text: members === '' ? text : `${text.slice(0, -1)},${members}}` };
}

/** A body of the events' texts: an array, or the one event alone. */
function bodyOf(events: { text: string }[], asArray: boolean): string {
  return asArray ? `[${events.map((event) => event.text).join(',')}]` : events[0]!.text;
}

// [scenario, the events, an array body?, the pointers refused]
const refused: [string, () => { id: string; text: string }[], boolean, string[]][] = [
  ['"props" twice, the plan bypass of issue 24', () => [eventWith('"props":{"plan":"gold"},"props":{"plan":"pro"}', { type: 'signup', url: null })], false, ['/props']],
  ['"props" and "pro\\u0070s": one name', () => [eventWith('"pro\\u0070s":{"plan":"free"}', { type: 'signup', url: null, props: { plan: 'pro' } })], false, ['/props']],
  ['a name written with escapes only', () => [eventWith('"props":{"plan":"pro","\\u0070\\u006C\\u0061\\u006e":"free"}', { type: 'signup', url: null })], false, ['/props/plan']],
  ['in the fourth event of an array', () => [eventWith(''), eventWith(''), eventWith(''), eventWith('"props":{"plan":"pro","plan":"free"}'), eventWith('')], true, ['/3/props/plan']],
  ['deep in props, inside an array', () => [eventWith('"props":{"a":{"b":[0,{"c":1},{"c":1,"d":2,"c":2}]}}')], false, ['/props/a/b/2/c']],
  ['in an unknown field, with the same value twice', () => [eventWith('"future":{"x":1,"x":1}')], false, ['/future/x']],
  ['a top-level field', () => [eventWith('"type":"signup"')], false, ['/type']],
  ['"site_id" twice in an array event', () => [eventWith(''), eventWith('"site_id":"shop"')], true, ['/1/site_id']],
  ['names that need escaping in a pointer', () => [eventWith('"props":{"a/b~c":1,"a\\/b~c":2}')], false, ['/props/a~1b~0c']],
  ['the empty name', () => [eventWith('"props":{"":1,"":2}')], false, ['/props/']],
  ['__proto__', () => [eventWith('"props":{"__proto__":{"x":1},"__proto__":{"y":2}}')], false, ['/props/__proto__']],
  ['a name thrice, and another twice, in two events', () => [eventWith('"props":{"n":1,"n":2,"n":3,"m":0,"m":1}'), eventWith('"context":{"title":"a","title":"b"}')], true, ['/0/props/n', '/0/props/m', '/1/context/title']],
];

// [scenario, the events, an array body?]
const accepted: [string, () => { id: string; text: string }[], boolean][] = [
  ['the same name in sibling and nested objects', () => [eventWith('"props":{"title":"a","nested":{"title":"b","nested":{"title":"c"}},"list":[{"title":1},{"title":2}]},"context":{"title":"d"}')], false],
  ['every event of an array with the same names', () => [eventWith('"props":{"plan":"pro"}'), eventWith('"props":{"plan":"pro"}')], true],
  ['names that only look alike (case, an escape of another letter, a trailing space)', () => [eventWith('"props":{"plan":1,"Plan":2,"plan\\u0073":3,"plan ":4}')], false],
  ['colons and quotes inside strings', () => [eventWith('"props":{"a:b":"c:d","q\\"":"\\":\\"","\\\\":"\\\\:"}')], false],
];

describe('repeated member names on the collector', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Reject mode: the tracking plan of CONTRACT section 3 (signup's props.plan is free or pro) is what "props"
    // twice used to get past.
    const plan = join(makeTempDir('sightline-plan-'), 'plan.json');
    writeFileSync(plan, JSON.stringify(contractBundle()));
    server = await startTestServer({ env: { SCHEMA_BUNDLE_PATH: plan, SCHEMA_MODE: 'reject' } });
    await seedWorkspace(server, 'acme', { sites: ['shop'] });
  });
  afterAll(() => server.close());

  const stored = (ids: string[]) => (server.db.prepare(`SELECT count(*) AS n FROM events WHERE id IN (${ids.map(() => '?').join(',')})`).get(...ids) as { n: number }).n;

  it.each(['/events', '/v1/events', '/s2s/events', '/v1/s2s/events'])('%s refuses each with 400 invalid_payload at the repeated member, storing nothing', async (path) => {
    const before = await settledTableCounts(server);
    for (const [scenario, events, asArray, pointers] of refused) {
      const built = events();
      const response = await server.request('POST', path, { token: 'shop', rawBody: bodyOf(built, asArray), headers: { 'content-type': 'application/json', 'user-agent': firefox } });
      expect(response.status, scenario).toBe(400);
      expect(response.body.error.code, scenario).toBe('invalid_payload');
      expect(response.body.error.details, scenario).toEqual(pointers.map((pointer) => ({ path: pointer, message })));
      expect(stored(built.map((event) => event.id)), scenario).toBe(0);
    }
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it.each(['/events', '/s2s/events'])('%s accepts the same name in different objects and names that only look alike', async (path) => {
    for (const [scenario, events, asArray] of accepted) {
      const built = events();
      const response = await server.request('POST', path, { token: 'shop', rawBody: bodyOf(built, asArray), headers: { 'content-type': 'application/json', 'user-agent': firefox } });
      expect(response.status, `${scenario}: ${response.text}`).toBe(202);
      expect(stored(built.map((event) => event.id)), scenario).toBe(built.length);
    }
  });

  it('points at 20 repeated members at most, and spells a pointer out to 100 levels (then names the ancestor)', async () => {
    const send = async (text: string) => {
      const response = await server.request('POST', '/s2s/events', { token: 'shop', rawBody: text, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(400);
      return response.body.error.details as { path: string; message: string }[];
    };
    const names = (count: number) => Array.from({ length: count }, (_, index) => `"n${index}":1,"n${index}":2`).join(',');
    for (const [count, pointed] of [[20, 20], [21, 20]] as const) {
      const details = await send(eventWith(`"props":{${names(count)}}`).text);
      expect(details).toEqual(Array.from({ length: pointed }, (_, index) => ({ path: `/props/n${index}`, message })));
    }
    // "future", then `levels` objects "a", then the repeated "x": a pointer of levels + 2 names.
    const nested = (levels: number) => eventWith(`"future":${'{"a":'.repeat(levels)}{"x":1,"x":2}${'}'.repeat(levels)}`).text;
    expect(await send(nested(98))).toEqual([{ path: `/future${'/a'.repeat(98)}/x`, message }]);
    expect(await send(nested(99))).toEqual([{ path: `/future${'/a'.repeat(99)}`, message: `${message} (deeper than 100 levels)` }]);
  });

  it('keeps the plan: one "props" with the value the plan refuses is refused by the plan, as before', async () => {
    const gold = eventWith('"props":{"plan":"gold"}', { type: 'signup', url: null });
    const response = await server.request('POST', '/events', { token: 'shop', rawBody: gold.text, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'schema_validation_failed', details: [{ path: '/props/plan' }] });
  });

  it('answers alike on the h3 route (app.fetch) and the Node fast path', async () => {
    const body = bodyOf([eventWith(''), eventWith('"props":{"a":{"b":1,"b":2}}')], true);
    const headers = { authorization: 'Bearer shop', 'content-type': 'text/plain;charset=UTF-8', 'user-agent': firefox };
    const fetched = await server.app.fetch(new Request('http://sightline.test/v1/events', { method: 'POST', body, headers }));
    const served = await fetch(`${server.url}/v1/events`, { method: 'POST', body, headers });
    const answers = [
      { status: fetched.status, body: await fetched.json() },
      { status: served.status, body: await served.json() },
    ];
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toEqual({ status: 400, body: { error: { code: 'invalid_payload', message: expect.any(String), details: [{ path: '/1/props/a/b', message }] } } });
  });
});

describe('repeated member names on the other ways in', () => {
  let server: TestServer;
  beforeAll(async () => {
    const { '*': _wildcard, ...withoutWildcard } = contractBundle().events;
    const plan = join(makeTempDir('sightline-plan-'), 'plan.json');
    writeFileSync(plan, JSON.stringify({ ...contractBundle(), events: withoutWildcard }));
    server = await startTestServer({ env: { SCHEMA_BUNDLE_PATH: plan, SCHEMA_MODE: 'quarantine' } });
    await seedWorkspace(server, 'acme', { sites: ['shop'] });
    setWebhookSecret(server.app.context, systemActor, 'shop', { adapter: 'stripe', secret: secretA });
  });
  afterAll(() => server.close());

  it('DLQ replay of a row quarantined before the rule answers 502 ingest_rejected with the pointer and keeps the row', async () => {
    const refund = makeEvent('shop', { type: 'refund', url: null, props: { amount: 1 } });
    expect((await server.request('POST', '/events', { token: 'shop', body: refund })).body).toMatchObject({ quarantined: 1 });
    const [row] = (await server.request('GET', '/sites/shop/dlq')).body.events;
    // As an earlier release stored it: the payload text with a repeated name.
    const payload = `${JSON.stringify(refund).slice(0, -1)},"props":{"amount":2}}`;
    server.db.prepare('UPDATE dlq SET payload = ? WHERE id = ?').run(payload, row.id);
    const response = await server.request('POST', `/sites/shop/dlq/${row.id}/replay`);
    expect(response.status).toBe(502);
    expect(response.body.error.code).toBe('ingest_rejected');
    expect(response.body.error.details).toContainEqual({ path: '/props', message });
    expect(server.db.prepare('SELECT count(*) AS n FROM dlq WHERE id = ?').get(row.id)).toEqual({ n: 1 });
    expect(server.db.prepare('SELECT count(*) AS n FROM events WHERE id = ?').get(refund.id)).toEqual({ n: 0 });
  });

  it('the stripe webhook refuses a body that repeats a name (which amount would be the revenue?) and forwards nothing', async () => {
    const now = secondsOf(Date.now());
    const event = stripeEvent('charge.succeeded', charge({ amount: 1999 }), now);
    const text = JSON.stringify(event).replace('"amount":1999', '"amount":1999,"amount":199900');
    const bytes = Buffer.from(text);
    const before = await settledTableCounts(server);
    const response = await postWebhook(server, '/v1/webhooks/stripe/shop', bytes, `t=${now},v1=${signBytes(bytes, secretA, now)}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_payload', message: expect.any(String), details: [{ path: '/data/object/amount', message }] });
    expect(await settledTableCounts(server)).toEqual(before);
    // The same event without the repeat is forwarded.
    const clean = Buffer.from(JSON.stringify(event));
    expect((await postWebhook(server, '/v1/webhooks/stripe/shop', clean, `t=${now},v1=${signBytes(clean, secretA, now)}`)).body).toEqual({ ok: true, forwarded: 1 });
  });
});
