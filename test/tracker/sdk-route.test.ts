// GET /sdk.js: the embedded tracker, its caching headers (ETag, 304 on If-None-Match) and the size budget of the
// issue: under 2 KB gzipped (level 9) with every feature in.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../_setup.ts';

const sizeBudgetBytes = 2048;

describe('GET /sdk.js', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it.each(['/sdk.js', '/v1/sdk.js'])('%s serves the minified tracker with a content-hash ETag, cacheable for an hour', async (path) => {
    const response = await server.request('GET', path, { token: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(response.text).toContain('sightline');
    // It parses as a script.
    expect(() => new Function(response.text)).not.toThrow();
  });

  it(`is under ${sizeBudgetBytes} bytes gzipped`, async () => {
    const response = await fetch(`${server.url}/sdk.js`);
    const bytes = Buffer.from(await response.arrayBuffer());
    const gzipped = gzipSync(bytes, { level: 9 }).length;
    console.log(`sdk.js: ${bytes.length} bytes, ${gzipped} bytes gzipped (level 9)`);
    expect(gzipped).toBeLessThan(sizeBudgetBytes);
  });

  it('answers 304 without a body when If-None-Match names the current script, 200 otherwise', async () => {
    const etag = (await fetch(`${server.url}/sdk.js`)).headers.get('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await fetch(`${server.url}/sdk.js`, { headers: { 'if-none-match': ifNoneMatch } });
      expect(response.status, ifNoneMatch).toBe(304);
      expect(response.headers.get('etag')).toBe(etag);
      expect(await response.text()).toBe('');
    }
    const stale = await fetch(`${server.url}/sdk.js`, { headers: { 'if-none-match': '"stale"' } });
    expect(stale.status).toBe(200);
  });
});
