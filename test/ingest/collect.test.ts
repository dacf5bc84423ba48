// POST /events and /s2s/events: auth modes, bodies at their limits, all-or-nothing batches, dedup, raw text,
// consent, enrichment, rate limits and the bounded queue, over real HTTP on a real SQLite file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../admin/_helpers.ts';
import { makeEvent, seedWorkspace, startTestServer, settledTableCounts, type TestServer } from '../_setup.ts';

const chromeDesktop = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

function storedEvents(server: TestServer, siteId: string): Record<string, any>[] {
  return server.db.prepare('SELECT * FROM events WHERE site_id = ? ORDER BY seq').all(siteId) as Record<string, any>[];
}

function post(server: TestServer, path: string, body: unknown, options: { token?: string; headers?: Record<string, string> } = {}) {
  return server.request('POST', path, { token: options.token ?? 'site-a', body, headers: options.headers });
}

describe('legacy site bearer (REQUIRE_API_KEY=none)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await seedWorkspace(server, 'acme', { sites: ['site-a', 'site-b'] });
  });
  afterAll(() => server.close());

  it.each(['/events', '/v1/events'])('%s accepts one event with 202 and stores it', async (path) => {
    const event = makeEvent('site-a');
    const response = await post(server, path, event);
    expect(response.status).toBe(202);
    // Node's fetch sends `User-Agent: node`, a bot's: stored, and the answer says so.
    expect(response.body).toEqual({ accepted: 1, bots: 1, duplicates: 0, quarantined: 0, dropped: 0 });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    // Acknowledged means committed: the row is there before any other request.
    expect(server.db.prepare('SELECT count(*) AS n FROM events WHERE id = ?').get(event.id)).toEqual({ n: 1 });
  });

  it('answers the CORS preflight', async () => {
    const response = await server.request('OPTIONS', '/events', { token: null, headers: { origin: 'https://example.com', 'access-control-request-method': 'POST' } });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, X-Site-Id');
  });

  it('refuses a missing or unknown bearer with 401 and stores nothing', async () => {
    const before = await settledTableCounts(server);
    for (const token of [null, 'no-such-site']) {
      const response = await server.request('POST', '/events', { token, body: makeEvent('site-a') });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: { code: 'unauthorized', message: 'Missing or invalid credentials' } });
    }
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it('takes text/plain bodies (beacons) and refuses other media types with 415', async () => {
    const ok = await server.request('POST', '/events', { token: 'site-a', rawBody: JSON.stringify(makeEvent('site-a')), headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    expect(ok.status).toBe(202);
    const refused = await server.request('POST', '/events', { token: 'site-a', rawBody: JSON.stringify(makeEvent('site-a')), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(refused.status).toBe(415);
    expect(refused.body.error.code).toBe('unsupported_media_type');
  });

  it('accepts 500 events in one array and refuses 501', async () => {
    const five = Array.from({ length: 500 }, () => makeEvent('site-b'));
    const accepted = await post(server, '/events', five, { token: 'site-b' });
    expect(accepted.status).toBe(202);
    expect(accepted.body.accepted).toBe(500);
    const tooMany = Array.from({ length: 501 }, () => makeEvent('site-b'));
    const before = await settledTableCounts(server);
    const refused = await post(server, '/events', tooMany, { token: 'site-b' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_payload');
    expect(await settledTableCounts(server)).toEqual(before);
    const empty = await post(server, '/events', [], { token: 'site-b' });
    expect(empty.status).toBe(400);
  });

  it('accepts a body of exactly 1 MiB and refuses one byte more with 413', async () => {
    const bodyOfSize = (size: number) => {
      const event = makeEvent('site-a', { props: { blob: '' } });
      const base = JSON.stringify(event).length;
      (event.props as { blob: string }).blob = 'x'.repeat(size - base);
      const text = JSON.stringify(event);
      expect(Buffer.byteLength(text)).toBe(size);
      return text;
    };
    const oneMiB = 1024 * 1024;
    const atLimit = await server.request('POST', '/events', { token: 'site-a', rawBody: bodyOfSize(oneMiB), headers: { 'content-type': 'application/json' } });
    expect(atLimit.status).toBe(202);
    const over = await server.request('POST', '/events', { token: 'site-a', rawBody: bodyOfSize(oneMiB + 1), headers: { 'content-type': 'application/json' } });
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('payload_too_large');
  });

  it('refuses malformed JSON with invalid_json', async () => {
    const response = await server.request('POST', '/events', { token: 'site-a', rawBody: '[{"id": ', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_json');
  });

  it('refuses a batch with one bad event as a whole, with index-prefixed JSON Pointers', async () => {
    const before = await settledTableCounts(server);
    const batch = [makeEvent('site-a'), makeEvent('site-a'), makeEvent('site-a'), makeEvent('site-a', { ts: 'yesterday' })];
    const response = await post(server, '/events', batch);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_payload');
    expect(response.body.error.details).toEqual([{ path: '/3/ts', message: 'must be an ISO-8601 timestamp with an offset' }]);
    expect(await settledTableCounts(server)).toEqual(before);
  });

  it.each([
    ['id', { id: 'not-a-uuid' }, '/id'],
    ['anon_id empty', { anon_id: '' }, '/anon_id'],
    ['anon_id 129 chars', { anon_id: 'a'.repeat(129) }, '/anon_id'],
    ['type pattern', { type: '1bad' }, '/type'],
    ['type 65 chars', { type: 'a'.repeat(65) }, '/type'],
    ['url not http', { url: 'ftp://example.com/' }, '/url'],
    ['url 2049 chars', { url: `https://example.com/${'a'.repeat(2049 - 20)}` }, '/url'],
    ['pageview without url', { url: null }, '/url'],
    ['ts without offset', { ts: '2026-01-01T00:00:00' }, '/ts'],
    ['ts too far ahead', { ts: new Date(Date.now() + 11 * 60_000).toISOString() }, '/ts'],
    ['ts too old', { ts: new Date(Date.now() - 401 * 86_400_000).toISOString() }, '/ts'],
    ['site_id of another site', { site_id: 'site-b' }, '/site_id'],
    ['revenue currency', { revenue: { amount: '1.00', currency: 'XYZ' } }, '/revenue/currency'],
    ['revenue too precise', { revenue: { amount: '1.005', currency: 'EUR' } }, '/revenue/amount'],
    ['props not an object', { props: [1, 2] }, '/props'],
    ['user_id 129 chars', { user_id: 'u'.repeat(129) }, '/user_id'],
    ['consent not boolean', { consent: { analytics: 'no' } }, '/consent/analytics'],
  ])('refuses %s with a pointer at the field', async (_name, override, path) => {
    const response = await post(server, '/events', makeEvent('site-a', override));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_payload');
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
  });

  it.each([
    ['a malformed code', 'EURO'],
    ['an unknown code', 'XYZ'],
  ])('refuses revenue in %s at /revenue/currency alone: its amount cannot be judged without its decimals', async (_name, currency) => {
    const response = await post(server, '/events', makeEvent('site-a', { type: 'purchase', url: null, revenue: { amount: '12.50', currency } }));
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([{ path: '/revenue/currency', message: 'must be an ISO-4217 currency code' }]);
  });

  it.each([
    ['anon_id of 128 chars', { anon_id: 'a'.repeat(128) }],
    ['type of 64 chars', { type: `a${'b'.repeat(63)}`, url: null }],
    ['url of 2048 chars', { url: `https://example.com/${'a'.repeat(2048 - 20)}` }],
    ['ts 9 minutes ahead', { ts: new Date(Date.now() + 9 * 60_000).toISOString() }],
    ['ts 399 days old', { ts: new Date(Date.now() - 399 * 86_400_000).toISOString() }],
    ['ts with a +02:00 offset', { ts: '2026-11-22T04:00:00+02:00' }],
    ['JPY without decimals', { revenue: { amount: 1500, currency: 'JPY' } }],
  ])('accepts %s', async (_name, override) => {
    const response = await post(server, '/events', makeEvent('site-a', override));
    expect(response.status, JSON.stringify(response.body)).toBe(202);
  });

  it('dedups across requests and inside one batch', async () => {
    const first = makeEvent('site-a');
    expect((await post(server, '/events', first)).body).toEqual({ accepted: 1, bots: 1, duplicates: 0, quarantined: 0, dropped: 0 });
    expect((await post(server, '/events', { ...first, id: (first.id as string).toUpperCase() })).body).toEqual({ accepted: 0, bots: 0, duplicates: 1, quarantined: 0, dropped: 0 });
    const second = makeEvent('site-a');
    expect((await post(server, '/events', [second, second, first])).body).toEqual({ accepted: 1, bots: 1, duplicates: 2, quarantined: 0, dropped: 0 });
    expect(server.db.prepare('SELECT count(*) AS n FROM events WHERE id IN (?, ?)').get(first.id, second.id)).toEqual({ n: 2 });
  });

  it('dedups concurrent requests carrying the same id', async () => {
    const event = makeEvent('site-a');
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(server, '/events', event)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(202));
    expect(answers.reduce((sum, answer) => sum + answer.body.accepted, 0)).toBe(1);
    expect(answers.reduce((sum, answer) => sum + answer.body.duplicates, 0)).toBe(9);
  });

  it('keeps the exact JSON text of each event in raw, unknown fields included', async () => {
    const a = makeEvent('site-a', { future_field: { nested: [1, 'two'] } });
    const b = makeEvent('site-a');
    const body = `[ ${JSON.stringify(a, null, 2)} ,\n${JSON.stringify(b)}\n]`;
    const response = await server.request('POST', '/events', { token: 'site-a', rawBody: body, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(202);
    const rows = server.db.prepare('SELECT id, raw FROM events WHERE id IN (?, ?)').all(a.id, b.id) as { id: string; raw: string }[];
    expect(rows.find((row) => row.id === a.id)!.raw).toBe(JSON.stringify(a, null, 2));
    expect(rows.find((row) => row.id === b.id)!.raw).toBe(JSON.stringify(b));
  });

  it('reads the id, url, referrer and props columns from raw, and refuses events SQL would read otherwise (a repeated name)', async () => {
    const plain = makeEvent('site-a', { id: crypto.randomUUID().toUpperCase(), referrer: 'https://r.example/', props: { plan: 'pro' } });
    expect((await post(server, '/events', plain)).status).toBe(202);
    const row = server.db.prepare('SELECT id, id_override, url, referrer, props FROM events WHERE raw = ?').get(JSON.stringify(plain));
    // Nothing stored for the id: the virtual column lower-cases raw's.
    expect(row).toEqual({ id: (plain.id as string).toLowerCase(), id_override: null, url: plain.url, referrer: 'https://r.example/', props: '{"plan":"pro"}' });
    const ts = new Date().toISOString();
    const cases = [
      // A repeated "id": JSON.parse takes the last, SQL's json_extract the first.
      { text: `{"id":"${crypto.randomUUID()}","site_id":"site-a","anon_id":"twice","ts":"${ts}","type":"click","id":"${crypto.randomUUID()}"}`, path: '/id' },
      // Raw SQLite cannot parse at all (nested 1,100 levels; JSON.parse keeps the valid last "x").
      { text: `{"id":"${crypto.randomUUID()}","site_id":"site-a","anon_id":"deep","ts":"${ts}","type":"click","x":${'['.repeat(1100)}${']'.repeat(1100)},"x":1}`, path: '/x' },
      // A repeated "anon_id".
      { text: `{"id":"${crypto.randomUUID()}","site_id":"site-a","anon_id":"first","ts":"${ts}","type":"click","anon_id":"last"}`, path: '/anon_id' },
      // A repeated "url", the first with a query and the last without.
      { text: `{"id":"${crypto.randomUUID()}","site_id":"site-a","anon_id":"url-twice","ts":"${ts}","type":"pageview","url":"https://a.example/?first=1","url":"https://a.example/"}`, path: '/url' },
    ];
    for (const { text, path } of cases) {
      const sent = await server.request('POST', '/events', { token: 'site-a', rawBody: text, headers: { 'content-type': 'application/json' } });
      expect(sent.status, text.slice(0, 200)).toBe(400);
      expect(sent.body.error.code).toBe('invalid_payload');
      expect(sent.body.error.details.map((detail: { path: string }) => detail.path)).toEqual([path]);
      expect(server.db.prepare('SELECT count(*) AS n FROM events WHERE raw = ?').get(text)).toEqual({ n: 0 });
    }
  });

  it('reads anon_id and query from raw, and stores them only where SQL would read raw otherwise', async () => {
    const cases = [
      // What most events are: nothing stored for either.
      { text: JSON.stringify(makeEvent('site-a', { anon_id: 'plain', url: 'https://a.example/p?x=1&utm_source=n#top' })), anon: 'plain', query: 'x=1&utm_source=n', stored: [null, null] },
      { text: JSON.stringify(makeEvent('site-a', { anon_id: 'no-query', url: 'https://a.example/p#frag?x=1' })), anon: 'no-query', query: null, stored: [null, null] },
      { text: JSON.stringify(makeEvent('site-a', { anon_id: 'empty-query', url: 'https://a.example/p?#x' })), anon: 'empty-query', query: null, stored: [null, null] },
      { text: JSON.stringify(makeEvent('site-a', { anon_id: 'no-url', type: 'click', url: undefined })), anon: 'no-url', query: null, stored: [null, null] },
      // The URL parser percent-encodes the space and drops the tab: the stored query is the parser's.
      { text: JSON.stringify(makeEvent('site-a', { anon_id: 'encoded', url: 'https://a.example/p?q=a b&t=1\t2' })), anon: 'encoded', query: 'q=a%20b&t=12', stored: [null, 'q=a%20b&t=12'] },
    ];
    for (const { text, anon, query, stored } of cases) {
      const sent = await server.request('POST', '/events', { token: 'site-a', rawBody: text, headers: { 'content-type': 'application/json' } });
      expect(sent.body).toMatchObject({ accepted: 1 });
      const row = server.db.prepare('SELECT anon_id, query, anon_id_override, query_override FROM events WHERE raw = ?').get(text);
      expect(row, text).toEqual({ anon_id: anon, query, anon_id_override: stored[0], query_override: stored[1] });
    }
  });

  it('acknowledges but does not store events without analytics consent', async () => {
    const denied = makeEvent('site-a', { consent: { analytics: false } });
    const granted = makeEvent('site-a', { consent: { analytics: true, marketing: false } });
    const response = await post(server, '/events', [denied, granted]);
    expect(response.body).toEqual({ accepted: 1, bots: 1, duplicates: 0, quarantined: 0, dropped: 1 });
    expect(server.db.prepare('SELECT count(*) AS n FROM events WHERE id = ?').get(denied.id)).toEqual({ n: 0 });
    const metrics = await server.request('GET', '/metrics');
    expect(metrics.text).toMatch(/sightline_ingest_events_total\{outcome="dropped_consent"\} [1-9]/);
  });

  it('enriches browser events from the URL, referrer and user agent', async () => {
    const cases = [
      { url: 'https://example.com/pricing?utm_source=Newsletter&utm_medium=email&utm_campaign=spring&utm_term=t&utm_content=c&x=1', referrer: 'https://www.google.com/', source: 'newsletter' },
      { url: 'https://example.com/?gclid=abc', referrer: null, source: 'google' },
      { url: 'https://example.com/?fbclid=abc', referrer: 'https://t.co/x', source: 'facebook' },
      { url: 'https://example.com/?msclkid=abc', referrer: null, source: 'bing' },
      { url: 'https://example.com/a', referrer: 'https://www.news.ycombinator.com/item', source: 'news.ycombinator.com' },
      { url: 'https://example.com/a', referrer: 'https://example.com/b', source: 'direct' },
      { url: 'https://example.com/a', referrer: null, source: 'direct' },
    ];
    for (const item of cases) {
      const event = makeEvent('site-b', { url: item.url, referrer: item.referrer, context: { user_agent: googlebot } });
      const response = await post(server, '/events', event, { token: 'site-b', headers: { 'user-agent': iphone } });
      expect(response.status).toBe(202);
      const row = server.db.prepare('SELECT * FROM events WHERE id = ?').get(event.id) as Record<string, any>;
      expect(row.source, item.url).toBe(item.source);
      // The browser's own agent counts on /events, not the one in context.
      expect([row.browser, row.os, row.device_type, row.is_bot]).toEqual(['Mobile Safari', 'iOS', 'mobile', 0]);
    }
    const utm = storedEvents(server, 'site-b').find((row) => row.utm_campaign === 'spring')!;
    expect(utm).toMatchObject({ path: '/pricing', utm_source: 'Newsletter', utm_medium: 'email' });
    expect(utm.query).toContain('x=1');
    // url, referrer and the other utm fields are not columns: reads take them from raw, the text as received.
    expect(JSON.parse(utm.raw)).toMatchObject({ url: cases[0]!.url, referrer: 'https://www.google.com/' });
  });

  it('stores bots flagged, and forms no visits for them', async () => {
    const event = makeEvent('site-b', { anon_id: 'bot-visitor' });
    await post(server, '/events', event, { token: 'site-b', headers: { 'user-agent': googlebot } });
    const row = server.db.prepare('SELECT is_bot FROM events WHERE id = ?').get(event.id);
    expect(row).toEqual({ is_bot: 1 });
    await server.projected();
    expect(server.db.prepare("SELECT count(*) AS n FROM sessions WHERE anon_id = 'bot-visitor'").get()).toEqual({ n: 0 });
  });

  it('says in the answer how many accepted events were taken for bots: never duplicates, never refused ones', async () => {
    // /events: the request's User-Agent decides, for every event of the body.
    const crawled = [makeEvent('site-b'), makeEvent('site-b')];
    const byCrawler = await post(server, '/events', crawled, { token: 'site-b', headers: { 'user-agent': googlebot } });
    expect(byCrawler.body).toEqual({ accepted: 2, bots: 2, duplicates: 0, quarantined: 0, dropped: 0 });
    const byBrowser = await post(server, '/events', makeEvent('site-b'), { token: 'site-b', headers: { 'user-agent': chromeDesktop } });
    expect(byBrowser.body).toEqual({ accepted: 1, bots: 0, duplicates: 0, quarantined: 0, dropped: 0 });
    // A repeat of a stored bot event is a duplicate, not a bot; a new one next to it is.
    const repeat = await post(server, '/events', [crawled[0], makeEvent('site-b')], { token: 'site-b', headers: { 'user-agent': googlebot } });
    expect(repeat.body).toEqual({ accepted: 1, bots: 1, duplicates: 1, quarantined: 0, dropped: 0 });
    // /s2s/events: each event's context.user_agent decides; the calling server's own agent never does.
    const mixed = [makeEvent('site-b', { context: { user_agent: googlebot } }), makeEvent('site-b', { context: { user_agent: iphone } }), makeEvent('site-b')];
    const s2s = await post(server, '/s2s/events', mixed, { token: 'site-b', headers: { 'user-agent': googlebot } });
    expect(s2s.body).toEqual({ accepted: 3, bots: 1, duplicates: 0, quarantined: 0, dropped: 0 });
    expect(mixed.map((event) => (server.db.prepare('SELECT is_bot FROM events WHERE id = ?').get(event.id) as { is_bot: number }).is_bot)).toEqual([1, 0, 0]);
  });

  it('binds anon_id to user_id and keeps every binding', async () => {
    await post(server, '/events', [makeEvent('site-a', { anon_id: 'phone', user_id: 'u-1' }), makeEvent('site-a', { anon_id: 'laptop', user_id: 'u-1' })]);
    // The projector keeps the bindings.
    await server.projected();
    const rows = server.db.prepare("SELECT anon_id FROM identities WHERE site_id = 'site-a' AND user_id = 'u-1' ORDER BY anon_id").all();
    expect(rows).toEqual([{ anon_id: 'laptop' }, { anon_id: 'phone' }]);
  });

  it('stores revenue exactly in minor units', async () => {
    const event = makeEvent('site-a', { type: 'purchase', url: null, revenue: { amount: '19.99', currency: 'EUR' } });
    await post(server, '/events', event);
    expect(server.db.prepare('SELECT revenue_minor, revenue_currency FROM events WHERE id = ?').get(event.id)).toEqual({ revenue_minor: 1999, revenue_currency: 'EUR' });
  });
});

describe('server-to-server events and geo', () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: 'true', INTERNAL_IPS: '10.0.0.0/8,2001:db8::/32' } });
    key = (await seedWorkspace(server, 'geo', { sites: ['geo-site'], scopes: ['ingest:write'] })).key!;
  });
  afterAll(() => server.close());

  it('honours context.user_agent and context.ip on /s2s/events only', async () => {
    const withContext = makeEvent('geo-site', { context: { user_agent: chromeDesktop, ip: '8.8.8.8' } });
    const bare = makeEvent('geo-site');
    const response = await server.request('POST', '/s2s/events', { token: key, body: [withContext, bare], headers: { 'user-agent': 'my-backend/1.0' } });
    expect(response.status).toBe(202);
    expect(server.db.prepare('SELECT browser, os, device_type, country, is_bot FROM events WHERE id = ?').get(withContext.id)).toEqual({ browser: 'Chrome', os: 'Windows', device_type: 'desktop', country: 'US', is_bot: 0 });
    // Without context, the calling server's own agent is never taken for the visitor.
    expect(server.db.prepare('SELECT browser, os, device_type, country, is_bot FROM events WHERE id = ?').get(bare.id)).toEqual({ browser: null, os: null, device_type: null, country: null, is_bot: 0 });
  });

  it('takes the client IP from X-Forwarded-For with TRUST_PROXY (the entry the proxy appended), and never stores it', async () => {
    const event = makeEvent('geo-site');
    await server.request('POST', '/events', { token: 'geo-site', body: event, headers: { 'x-forwarded-for': '10.1.1.1, 81.2.69.142' } });
    const row = server.db.prepare('SELECT * FROM events WHERE id = ?').get(event.id) as Record<string, unknown>;
    expect(row.country).toBe('GB');
    expect(JSON.stringify(row)).not.toContain('81.2.69.142');
  });

  it('tags internal traffic by INTERNAL_IPS and by the s2s internal field', async () => {
    const office = makeEvent('geo-site');
    await server.request('POST', '/events', { token: 'geo-site', body: office, headers: { 'x-forwarded-for': '10.20.30.40' } });
    const flagged = makeEvent('geo-site', { internal: true });
    await server.request('POST', '/s2s/events', { token: key, body: flagged });
    const v6 = makeEvent('geo-site', { context: { ip: '2001:db8::1' } });
    await server.request('POST', '/s2s/events', { token: key, body: v6 });
    const outside = makeEvent('geo-site', { internal: true });
    await server.request('POST', '/events', { token: 'geo-site', body: outside, headers: { 'x-forwarded-for': '8.8.4.4' } });
    const internal = (id: unknown) => (server.db.prepare('SELECT is_internal FROM events WHERE id = ?').get(id) as { is_internal: number }).is_internal;
    expect([internal(office.id), internal(flagged.id), internal(v6.id), internal(outside.id)]).toEqual([1, 1, 1, 0]);
  });
});

describe('API keys (REQUIRE_API_KEY=tag and require)', () => {
  it.each([
    // mode, endpoint, credential, X-Site-Id, expected status
    ['none', '/s2s/events', 'site', undefined, 202],
    ['none', '/s2s/events', 'ingest', undefined, 202],
    ['none', '/events', 'ingest', 'k-site', 401],
    ['tag', '/events', 'site', undefined, 202],
    ['tag', '/events', 'ingest', 'k-site', 202],
    ['tag', '/events', 'ingest', undefined, 202],
    ['tag', '/s2s/events', 'site', undefined, 401],
    ['tag', '/s2s/events', 'ingest', undefined, 202],
    ['require', '/events', 'site', undefined, 401],
    ['require', '/events', 'ingest', 'k-site', 202],
    ['require', '/events', 'query', 'k-site', 403],
    ['require', '/events', 'admin', 'k-site', 202],
    ['require', '/events', 'revoked', 'k-site', 401],
    ['require', '/events', 'foreign', 'k-site', 404],
    ['require', '/events', 'ingest', 'other-site', 404],
    ['require', '/s2s/events', 'ingest', undefined, 202],
  ] as const)('%s: %s with a %s credential and X-Site-Id %s → %i', async (mode, path, credential, siteHeader, status) => {
    const server = await startTestServer({ env: { REQUIRE_API_KEY: mode } });
    try {
      const own = await seedWorkspace(server, 'keys', { sites: ['k-site'], scopes: ['ingest:write'] });
      const other = await seedWorkspace(server, 'other', { sites: ['other-site'], scopes: ['ingest:write'] });
      const keyWith = async (scopes: string[]) => (await server.request('POST', '/workspaces/keys/keys', { body: { label: 'x', scopes } })).body;
      const tokens: Record<string, string> = {
        site: 'k-site',
        ingest: own.key!,
        query: (await keyWith(['query:read'])).plaintext,
        admin: (await keyWith(['admin'])).plaintext,
        foreign: other.key!,
      };
      const revoked = await keyWith(['ingest:write']);
      await server.request('DELETE', `/workspaces/keys/keys/${revoked.id}`);
      tokens.revoked = revoked.plaintext;
      const headers: Record<string, string> = siteHeader ? { 'x-site-id': siteHeader } : {};
      const response = await server.request('POST', path, { token: tokens[credential], body: makeEvent('k-site'), headers });
      expect(response.status, JSON.stringify(response.body)).toBe(status);
    } finally {
      await server.close();
    }
  });
});

describe('gates that refuse a whole request', () => {
  it('rate-limits per site with a 10x burst and answers 429 with Retry-After', async () => {
    const server = await startTestServer({ clock: manualClock(new Date().toISOString()), env: { RATE_LIMIT_SITE: '2', RATE_LIMIT_IP: '1000' } });
    try {
      await seedWorkspace(server, 'rl', { sites: ['rl-site'] });
      const burst = Array.from({ length: 20 }, () => makeEvent('rl-site'));
      expect((await server.request('POST', '/events', { token: 'rl-site', body: burst })).status).toBe(202);
      const before = await settledTableCounts(server);
      const refused = await server.request('POST', '/events', { token: 'rl-site', body: makeEvent('rl-site') });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await settledTableCounts(server)).toEqual(before);
    } finally {
      await server.close();
    }
  });

  it('rate-limits /events per client IP', async () => {
    // A clock that stands still: on a loaded machine ten requests can take longer than the bucket's refill.
    const server = await startTestServer({ clock: manualClock(new Date().toISOString()), env: { RATE_LIMIT_IP: '1' } });
    try {
      await seedWorkspace(server, 'ip', { sites: ['ip-site'] });
      for (let index = 0; index < 10; index++) {
        expect((await server.request('POST', '/events', { token: 'ip-site', body: makeEvent('ip-site') })).status).toBe(202);
      }
      expect((await server.request('POST', '/events', { token: 'ip-site', body: makeEvent('ip-site') })).status).toBe(429);
    } finally {
      await server.close();
    }
  });

  it('answers 503 overloaded with Retry-After when the queue is full', async () => {
    const server = await startTestServer({ ingest: { writeQueue: { maxPendingEvents: 3 } } });
    try {
      await seedWorkspace(server, 'q', { sites: ['q-site'] });
      const fits = await server.request('POST', '/events', { token: 'q-site', body: Array.from({ length: 3 }, () => makeEvent('q-site')) });
      expect(fits.status).toBe(202);
      const before = await settledTableCounts(server);
      const tooBig = await server.request('POST', '/events', { token: 'q-site', body: Array.from({ length: 4 }, () => makeEvent('q-site')) });
      expect(tooBig.status).toBe(503);
      expect(tooBig.body.error.code).toBe('overloaded');
      expect(tooBig.headers.get('retry-after')).toBe('1');
      expect(await settledTableCounts(server)).toEqual(before);
    } finally {
      await server.close();
    }
  });
});
