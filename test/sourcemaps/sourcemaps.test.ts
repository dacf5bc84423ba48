// Source map upload over HTTP: who may upload in each REQUIRE_API_KEY mode (401, never 403), the checks of release,
// file and map, the 25 MiB decoded edge, the upsert, removal with the site; and list-v2 resolving the stack of an
// error event through a real map esbuild wrote.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import type { TestResponse } from '../_http.ts';
import { createKey, createRevokedKey } from '../admin/_helpers.ts';
import { browserUserAgent } from '../e2e/_server.ts';
import { maxMappingsLength, maxMapBytes, maxUploadBodyBytes } from '../../src/sourcemaps/upload-body.ts';
import { cachedCostLimit, cachedMapLimit, estimatedCostOf, loadCostPerRequest, mapCacheStats, mapLoadsPerRequest } from '../../src/sourcemaps/resolve-stacks.ts';
import { buildCheckout, type BuiltScript, callLine, mapOfSize, stackOf, throwLine, uploadBody } from './_maps.ts';

const smallMap = JSON.stringify({ version: 3, sources: ['a.ts'], names: [], mappings: 'AAAA' });

function upload(server: TestServer, siteId: string, body: unknown, token: string | null, prefix = ''): Promise<TestResponse> {
  return server.request('POST', `${prefix}/sites/${siteId}/sourcemaps`, { token, body });
}

function mapCount(server: TestServer, siteId: string): number {
  return (server.db.prepare('SELECT count(*) AS n FROM sourcemaps WHERE site_id = ?').get(siteId) as { n: number }).n;
}

describe.each(['none', 'tag', 'require'] as const)('who may upload while REQUIRE_API_KEY is %s', (mode) => {
  let server: TestServer;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer({ env: { REQUIRE_API_KEY: mode } });
    await seedWorkspace(server, 'alpha', { sites: ['alpha-site', 'sk_alpha_lookalike'] });
    await seedWorkspace(server, 'beta', { sites: ['beta-site'] });
    tokens.ingest = (await createKey(server, 'alpha', ['ingest:write'])).plaintext;
    tokens.admin = (await createKey(server, 'alpha', ['admin'])).plaintext;
    tokens.read = (await createKey(server, 'alpha', ['query:read'])).plaintext;
    tokens.integrations = (await createKey(server, 'alpha', ['integrations:write'])).plaintext;
    tokens.revoked = (await createRevokedKey(server, 'alpha', ['ingest:write'])).plaintext;
    tokens.betaAdmin = (await createKey(server, 'beta', ['admin'])).plaintext;
  });
  afterAll(() => server.close());

  const body = () => uploadBody('1.0.0', 'app.js', smallMap);

  it.each([
    ['the admin token', 201, 'adminToken'],
    ['an ingest:write key of the workspace', 201, 'ingest'],
    ['an admin key of the workspace', 201, 'admin'],
    ['a query:read key', 401, 'read'],
    ['an integrations:write key', 401, 'integrations'],
    ['a revoked ingest key', 401, 'revoked'],
    ['an admin key of another workspace', 401, 'betaAdmin'],
    ['an unknown key', 401, 'sk_alpha_00000000000000000000000000000000'],
    ['no bearer', 401, null],
    ['the site id of another site', 401, 'beta-site'],
  ])('%s: %i', async (_name, status, token) => {
    const bearer = token === 'adminToken' ? undefined : token === null ? null : (tokens[token] ?? token);
    for (const prefix of ['', '/v1']) {
      const response = await server.request('POST', `${prefix}/sites/alpha-site/sourcemaps`, { token: bearer, body: body() });
      expect(response.status, response.text).toBe(status);
      if (status === 401) expect(response.body.error.code).toBe('unauthorized');
      else expect(response.body).toEqual({ size: smallMap.length });
    }
  });

  it(`the site-id bearer: ${mode === 'none' ? 'accepted' : '401'} (it is public)`, async () => {
    const response = await upload(server, 'alpha-site', body(), 'alpha-site');
    expect(response.status, response.text).toBe(mode === 'none' ? 201 : 401);
    // A site id that looks like a key is still the site's bearer.
    const lookalike = await upload(server, 'sk_alpha_lookalike', body(), 'sk_alpha_lookalike');
    expect(lookalike.status, lookalike.text).toBe(mode === 'none' ? 201 : 401);
  });

  it('a missing site: the 401 of a foreign one for every caller but the admin token (404)', async () => {
    const foreign = await upload(server, 'beta-site', body(), tokens.admin!);
    expect(foreign.status).toBe(401);
    for (const token of [tokens.admin!, tokens.ingest!, 'no-such-site']) {
      const missing = await upload(server, 'no-such-site', body(), token);
      expect(missing.status).toBe(401);
      expect(missing.text).toBe(foreign.text);
    }
    const byAdmin = await server.request('POST', '/sites/no-such-site/sourcemaps', { body: body() });
    expect(byAdmin.status).toBe(404);
    expect(byAdmin.body.error.code).toBe('not_found');
  });

  it('checks the caller before reading the body', async () => {
    const response = await server.request('POST', '/sites/alpha-site/sourcemaps', { token: tokens.read!, rawBody: 'not json', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(401);
  });
});

describe('the request body', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await seedWorkspace(server, 'alpha', { sites: ['site-a', 'site-doomed'] });
  });
  afterAll(() => server.close());

  function expectInvalid(response: TestResponse, path: string): void {
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('invalid_payload');
    expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
  }

  it('release: 128 characters of [A-Za-z0-9._-] accepted; 129, empty and other characters refused', async () => {
    expect((await upload(server, 'site-a', uploadBody('r'.repeat(128), 'app.js', smallMap), 'site-a')).status).toBe(201);
    expect((await upload(server, 'site-a', uploadBody('v1.2.3-rc_1.abcdef0', 'app.js', smallMap), 'site-a')).status).toBe(201);
    for (const release of ['r'.repeat(129), '', '1.0 beta', '1/0', 'v1+build', 'é', '1.0\u0000']) {
      expectInvalid(await upload(server, 'site-a', uploadBody(release, 'app.js', smallMap), 'site-a'), '/release');
    }
  });

  it('file: a base name ending in .js; paths, dot segments, NUL and other endings refused', async () => {
    for (const file of ['app.js', 'app.3f9a1c.js', 'chunk-ABC_123.js', 'vendor~main.js', 'a.js', `${'f'.repeat(252)}.js`]) {
      expect((await upload(server, 'site-a', uploadBody('1.0.0', file, smallMap), 'site-a')).status, file).toBe(201);
    }
    for (const file of [`${'f'.repeat(253)}.js`, '.js', '.hidden.js', '../app.js', 'a/app.js', 'a\\app.js', '/app.js', 'app..js', '..js', 'app.js\u0000.js', 'app\u0000.js', 'app.mjs', 'app.js.map', 'app.JS', 'app', '', 'app .js', 'app%2F.js']) {
      expectInvalid(await upload(server, 'site-a', uploadBody('1.0.0', file, smallMap), 'site-a'), '/file');
    }
  });

  it('map: standard base64 of a JSON source map of version 3', async () => {
    const map = (text: string) => ({ release: '1.0.0', file: 'app.js', map: text });
    const base64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
    const cases: [string, string][] = [
      ['empty', ''],
      ['not base64', '!!!!'],
      ['without padding', base64(smallMap).replace(/=+$/, '') || 'YQ'],
      ['with a line break', `${base64(smallMap).slice(0, 8)}\n${base64(smallMap).slice(8)}`],
      ['base64url', base64('{"a":"\u00ff\u00fe>?"}').replaceAll('+', '-').replaceAll('/', '_')],
      ['padding inside', `YQ==${base64(smallMap)}`],
      ['not UTF-8', Buffer.from([0xff, 0xfe, 0x7b, 0x7d]).toString('base64')],
      ['not JSON', base64('version: 3')],
      ['JSON but no map', base64({ hello: 'world' })],
      ['version 2', base64({ version: 2, sources: [], names: [], mappings: '' })],
      ['version "3"', base64({ version: '3', sources: [], names: [], mappings: '' })],
      ['no mappings', base64({ version: 3, sources: [] })],
      ['an array', base64([smallMap])],
    ];
    for (const [name, text] of cases) {
      const response = await upload(server, 'site-a', map(text), 'site-a');
      expect(response.status, name).toBe(400);
      expectInvalid(response, '/map');
    }
    // An indexed map (sections) is a map too.
    const indexed = { version: 3, sections: [{ offset: { line: 0, column: 0 }, map: JSON.parse(smallMap) }] };
    expect((await upload(server, 'site-a', map(base64(indexed)), 'site-a')).status).toBe(201);
  });

  it('refuses unknown and missing fields, non-JSON bodies and other media types', async () => {
    expectInvalid(await upload(server, 'site-a', { ...uploadBody('1.0.0', 'app.js', smallMap), extra: 1 }, 'site-a'), '/extra');
    expectInvalid(await upload(server, 'site-a', { release: '1.0.0', file: 'app.js' }, 'site-a'), '/map');
    expectInvalid(await upload(server, 'site-a', { release: 1, file: 'app.js', map: 'YQ==' }, 'site-a'), '/release');
    const notJson = await server.request('POST', '/sites/site-a/sourcemaps', { token: 'site-a', rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect(notJson.body.error.code).toBe('invalid_json');
    const text = await server.request('POST', '/sites/site-a/sourcemaps', { token: 'site-a', rawBody: JSON.stringify(uploadBody('1', 'a.js', smallMap)), headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
  });

  it('is an upsert on (site, release, file): a second upload replaces the map, answering 201 with its size', async () => {
    const first = await upload(server, 'site-a', uploadBody('2.0.0', 'upsert.js', smallMap), 'site-a');
    expect(first.body).toEqual({ size: smallMap.length });
    const bigger = JSON.stringify({ version: 3, sources: ['b.ts'], names: ['x'], mappings: 'AAAAA' });
    const second = await upload(server, 'site-a', uploadBody('2.0.0', 'upsert.js', bigger), 'site-a');
    expect(second.status).toBe(201);
    expect(second.body).toEqual({ size: bigger.length });
    const rows = server.db.prepare("SELECT size FROM sourcemaps WHERE site_id = 'site-a' AND release = '2.0.0' AND file = 'upsert.js'").all();
    expect(rows).toEqual([{ size: bigger.length }]);
    // Another release or file is another map.
    await upload(server, 'site-a', uploadBody('2.0.1', 'upsert.js', smallMap), 'site-a');
    await upload(server, 'site-a', uploadBody('2.0.0', 'other.js', smallMap), 'site-a');
    expect(server.db.prepare("SELECT count(*) AS n FROM sourcemaps WHERE site_id = 'site-a' AND file IN ('upsert.js', 'other.js')").get()).toEqual({ n: 3 });
  });

  it(`takes a map of exactly ${maxMapBytes} bytes decoded and refuses one byte more with 413, before decoding`, async () => {
    const largest = mapOfSize(maxMapBytes);
    const accepted = await upload(server, 'site-a', uploadBody('big', 'big.js', largest), 'site-a');
    expect(accepted.status, accepted.text.slice(0, 300)).toBe(201);
    expect(accepted.body).toEqual({ size: maxMapBytes });
    const tooLarge = await upload(server, 'site-a', uploadBody('big', 'bigger.js', mapOfSize(maxMapBytes + 1)), 'site-a');
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');
    expect(tooLarge.body.error.message).toContain(`${maxMapBytes + 1} bytes decoded`);
    // Past the body bound (the largest map's base64 and room for the rest), refused on Content-Length unread.
    const oversized = await server.request('POST', '/sites/site-a/sourcemaps', {
      token: 'site-a',
      rawBody: Buffer.alloc(maxUploadBodyBytes + 1, 0x20),
      headers: { 'content-type': 'application/json' },
    });
    expect(oversized.status).toBe(413);
    expect(server.db.prepare("SELECT file FROM sourcemaps WHERE site_id = 'site-a' AND release = 'big'").all()).toEqual([{ file: 'big.js' }]);
  }, 60_000);

  it(`mappings: ${maxMappingsLength} characters (all sections together) accepted, one more refused`, async () => {
    const withMappings = (length: number) => JSON.stringify({ version: 3, sources: ['a.ts'], names: [], mappings: `AAAA${';'.repeat(length - 4)}` });
    const accepted = await upload(server, 'site-a', uploadBody('mappings', 'longest.js', withMappings(maxMappingsLength)), 'site-a');
    expect(accepted.status, accepted.text).toBe(201);
    expectInvalid(await upload(server, 'site-a', uploadBody('mappings', 'longer.js', withMappings(maxMappingsLength + 1)), 'site-a'), '/map');
    const half = (length: number) => ({ offset: { line: 0, column: 0 }, map: { version: 3, sources: ['a.ts'], names: [], mappings: `AAAA${';'.repeat(length - 4)}` } });
    const sections = (extra: number) => JSON.stringify({ version: 3, sections: [half(maxMappingsLength / 2), half(maxMappingsLength / 2 + extra)] });
    expect((await upload(server, 'site-a', uploadBody('mappings', 'sections.js', sections(0)), 'site-a')).status).toBe(201);
    expectInvalid(await upload(server, 'site-a', uploadBody('mappings', 'sections.js', sections(1)), 'site-a'), '/map');
    expect(estimatedCostOf({ size: maxMapBytes, mappings_length: maxMappingsLength })).toBeLessThanOrEqual(Math.min(cachedCostLimit, loadCostPerRequest));
  });

  it('deleting the site deletes its maps', async () => {
    expect((await upload(server, 'site-doomed', uploadBody('1', 'a.js', smallMap), 'site-doomed')).status).toBe(201);
    expect(mapCount(server, 'site-doomed')).toBe(1);
    expect((await server.request('DELETE', '/v1/workspaces/alpha/sites/site-doomed')).status).toBe(204);
    expect(mapCount(server, 'site-doomed')).toBe(0);
  });
});

describe('list-v2 resolves the stacks of error events', () => {
  let server: TestServer;
  let script: BuiltScript;
  let stack: string;
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    server = await startTestServer();
    await seedWorkspace(server, 'alpha', { sites: ['shop', 'other-shop'] });
    script = await buildCheckout();
    stack = stackOf(script, 'https://shop.example/assets/app.js?v=3');
  });
  afterAll(() => server.close());

  async function ingest(siteId: string, events: Record<string, unknown>[]): Promise<void> {
    const response = await server.request('POST', '/events', { token: siteId, body: events, headers: { 'user-agent': browserUserAgent } });
    expect(response.status, response.text).toBe(202);
  }

  async function listed(siteId: string, query = ''): Promise<Record<string, any>[]> {
    const response = await server.request('GET', `/v1/sites/${siteId}/events/list-v2?from=${today}&to=${today}${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body.data.events;
  }

  it('maps each frame of a V8 stack to app.ts through the uploaded map of the release', async () => {
    expect(stack).toContain('https://shop.example/assets/app.js?v=3:1:');
    expect((await upload(server, 'shop', uploadBody('2026.11.1', 'app.js', script.map), 'shop')).status).toBe(201);
    const error = makeEvent('shop', { type: 'error', props: { message: 'cart too large', stack, release: '2026.11.1' } });
    const pageview = makeEvent('shop');
    const noStack = makeEvent('shop', { type: 'error', props: { message: 'no stack', release: '2026.11.1' } });
    await ingest('shop', [error, pageview, noStack]);

    const events = await listed('shop');
    const byId = new Map(events.map((item) => [item.id, item]));
    const frames = byId.get(error.id as string)!.resolved_stack;
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(frames[0]).toMatchObject({ file: 'app.js', line: 1, original: { source: 'app.ts', line: throwLine } });
    expect(frames[1]).toMatchObject({ file: 'app.js', line: 1, original: { source: 'app.ts', line: callLine } });
    expect(frames[0].frame).toMatch(/app\.js\?v=3:1:\d+\)?$/);
    expect(frames[0].original.column).toBeGreaterThanOrEqual(1);
    // Only error events carry it: null without a stack, absent on other types.
    expect(byId.get(noStack.id as string)!.resolved_stack).toBeNull();
    expect(byId.get(pageview.id as string)).not.toHaveProperty('resolved_stack');
  });

  it('a Firefox stack resolves too; another release, another site or an unknown file leaves frames unresolved', async () => {
    const match = /app\.js\?v=3:1:(\d+)/.exec(stack)!;
    const firefox = `totalOf@https://shop.example/assets/app.js:1:${match[1]}\n@debugger eval code:1:1`;
    const events = [
      makeEvent('shop', { type: 'error', props: { stack: firefox, release: '2026.11.1' } }),
      makeEvent('shop', { type: 'error', props: { stack, release: '2026.10.9' } }),
      makeEvent('shop', { type: 'error', props: { stack } }),
      makeEvent('shop', { type: 'error', props: { stack: stack.replaceAll('app.js', 'vendor.js'), release: '2026.11.1' } }),
      makeEvent('shop', { type: 'error', props: { stack, release: '../2026.11.1' } }),
    ];
    await ingest('shop', events);
    await ingest('other-shop', [makeEvent('other-shop', { type: 'error', props: { stack, release: '2026.11.1' } })]);
    const byId = new Map((await listed('shop', '&limit=200')).map((item) => [item.id, item]));
    const [firefoxFrames, ...unresolved] = events.map((event) => byId.get(event.id as string)!.resolved_stack);
    expect(firefoxFrames[0]).toMatchObject({ frame: firefox.split('\n')[0], file: 'app.js', original: { source: 'app.ts', line: throwLine } });
    expect(firefoxFrames[1]).toMatchObject({ file: 'debugger eval code', original: null });
    for (const frames of unresolved) {
      expect(frames.length).toBeGreaterThan(0);
      expect(frames.every((frame: { original: unknown }) => frame.original === null)).toBe(true);
    }
    const [foreign] = await listed('other-shop');
    expect(foreign!.resolved_stack.every((frame: { original: unknown }) => frame.original === null)).toBe(true);
  });

  it('a new upload of the same release and file is used at once (no stale cached map)', async () => {
    const event = makeEvent('shop', { type: 'error', props: { stack, release: '2026.12.0' } });
    await ingest('shop', [event]);
    const find = async () => (await listed('shop', '&limit=200')).find((item) => item.id === event.id)!.resolved_stack[0];
    expect((await find()).original).toBeNull();
    const elsewhere = JSON.parse(script.map) as { sources: string[] };
    elsewhere.sources = ['renamed.ts'];
    expect((await upload(server, 'shop', uploadBody('2026.12.0', 'app.js', JSON.stringify(elsewhere)), 'shop')).status).toBe(201);
    expect((await find()).original).toMatchObject({ source: 'renamed.ts', line: throwLine });
    expect((await upload(server, 'shop', uploadBody('2026.12.0', 'app.js', script.map), 'shop')).status).toBe(201);
    expect((await find()).original).toMatchObject({ source: 'app.ts', line: throwLine });
  });

  it('bounds what it reads of a stack: at most 50 frames, and a hostile line costs no backtracking', async () => {
    const long = Array.from({ length: 80 }, (_, index) => `    at f${index} (https://shop.example/app.js:1:${index + 1})`).join('\n');
    const hostile = `at ${'('.repeat(900)}${':1'.repeat(50)}\n${'@'.repeat(1000)}:1:1`;
    const events = [makeEvent('shop', { type: 'error', props: { stack: long, release: '2026.11.1' } }), makeEvent('shop', { type: 'error', props: { stack: hostile } })];
    await ingest('shop', events);
    const byId = new Map((await listed('shop', '&limit=200')).map((item) => [item.id, item]));
    expect(byId.get(events[0]!.id as string)!.resolved_stack).toHaveLength(50);
    expect(byId.get(events[1]!.id as string)!.resolved_stack.length).toBeLessThanOrEqual(2);
  });
});

describe('the cache of parsed maps', () => {
  let server: TestServer;
  const today = new Date().toISOString().slice(0, 10);
  /** A map of file-<index>.js whose only source is src-<index>.ts. */
  const mapNamed = (index: number) => JSON.stringify({ version: 3, sources: [`src-${index}.ts`], names: [], mappings: 'AAAA' });

  beforeAll(async () => {
    server = await startTestServer();
    await seedWorkspace(server, 'alpha', { sites: ['cache-site', 'costly-site'] });
  });
  afterAll(() => server.close());

  async function resolvedSources(): Promise<(string | null)[]> {
    const response = await server.request('GET', `/v1/sites/cache-site/events/list-v2?from=${today}&to=${today}&limit=200`);
    expect(response.status, response.text).toBe(200);
    return response.body.data.events.map((item: { resolved_stack: { original: { source: string } | null }[] }) => item.resolved_stack[0]!.original?.source ?? null);
  }

  it(`holds at most ${cachedMapLimit} maps and loads at most ${mapLoadsPerRequest} cold ones per page`, async () => {
    const count = 20;
    for (let index = 0; index < count; index++) {
      expect((await upload(server, 'cache-site', uploadBody('r1', `file-${index}.js`, mapNamed(index)), 'cache-site')).status).toBe(201);
    }
    const events = Array.from({ length: count }, (_, index) => makeEvent('cache-site', { type: 'error', props: { release: 'r1', stack: `Error: e\n    at f (https://a.example/file-${index}.js:1:1)` } }));
    const response = await server.request('POST', '/events', { token: 'cache-site', body: events, headers: { 'user-agent': browserUserAgent } });
    expect(response.status).toBe(202);

    const first = await resolvedSources();
    expect(first.slice(0, mapLoadsPerRequest)).toEqual(Array.from({ length: mapLoadsPerRequest }, (_, index) => `src-${index}.ts`));
    expect(first.slice(mapLoadsPerRequest).every((source) => source === null)).toBe(true);
    expect(mapCacheStats(server.db).maps).toBe(mapLoadsPerRequest);
    for (let round = 0; round < 4; round++) {
      const sources = await resolvedSources();
      // Whatever resolves resolves right; the cache never grows past its bound.
      sources.forEach((source, index) => expect([null, `src-${index}.ts`]).toContain(source));
      expect(mapCacheStats(server.db).maps).toBeLessThanOrEqual(cachedMapLimit);
      expect(mapCacheStats(server.db).cost).toBeLessThanOrEqual(cachedCostLimit);
    }
    expect(mapCacheStats(server.db).maps).toBe(cachedMapLimit);
  });

  it('a page loads cold maps up to an estimated memory cost; the next page resolves the rest', async () => {
    const costly = (index: number) => JSON.stringify({ version: 3, sources: [`costly-${index}.ts`], names: [], mappings: `AAAA${';'.repeat(maxMappingsLength - 4)}` });
    for (const index of [0, 1]) expect((await upload(server, 'costly-site', uploadBody('costly', `costly-${index}.js`, costly(index)), 'costly-site')).status).toBe(201);
    expect(2 * estimatedCostOf({ size: costly(0).length, mappings_length: maxMappingsLength })).toBeGreaterThan(loadCostPerRequest);
    const events = [0, 1].map((index) => makeEvent('costly-site', { type: 'error', props: { release: 'costly', stack: `at f (https://a.example/costly-${index}.js:1:1)` } }));
    expect((await server.request('POST', '/events', { token: 'costly-site', body: events, headers: { 'user-agent': browserUserAgent } })).status).toBe(202);
    const sourcesOf = async () => {
      const response = await server.request('GET', `/v1/sites/costly-site/events/list-v2?from=${today}&to=${today}&limit=200`);
      return events.map((event) => response.body.data.events.find((item: { id: string }) => item.id === event.id).resolved_stack[0].original?.source ?? null);
    };
    expect(await sourcesOf()).toEqual(['costly-0.ts', null]);
    // costly-0 is cached now (a hit costs no load): the second map loads on the next page.
    expect(await sourcesOf()).toEqual(['costly-0.ts', 'costly-1.ts']);
    expect(mapCacheStats(server.db).cost).toBeLessThanOrEqual(cachedCostLimit);
  });

  it('a stored map that no longer reads leaves its frames unresolved; the page is answered', async () => {
    await upload(server, 'cache-site', uploadBody('broken', 'file-0.js', mapNamed(0)), 'cache-site');
    server.db.prepare("UPDATE sourcemaps SET map_gzip = x'00', sha256 = 'damaged' WHERE site_id = 'cache-site' AND release = 'broken'").run();
    const event = makeEvent('cache-site', { type: 'error', props: { release: 'broken', stack: 'Error: e\n    at f (https://a.example/file-0.js:1:1)' } });
    expect((await server.request('POST', '/events', { token: 'cache-site', body: [event], headers: { 'user-agent': browserUserAgent } })).status).toBe(202);
    const response = await server.request('GET', `/v1/sites/cache-site/events/list-v2?from=${today}&to=${today}&limit=200`);
    expect(response.status).toBe(200);
    const item = response.body.data.events.find((candidate: { id: string }) => candidate.id === event.id);
    expect(item.resolved_stack[0].original).toBeNull();
  });
});
