// The admin UI's files as the server answers them: index.html at / (revalidated every time), hashed assets at /ui/*
// (cached for a year), strong ETags and 304s, a strict Content-Security-Policy on every UI answer, no inline script,
// and the whole UI under 150 KB gzipped.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uiAssets } from '../../src/ui/assets.ts';
import { startTestServer, type TestServer } from '../_setup.ts';

const maxGzippedBytes = 150 * 1024;
const expectedPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];

describe('UI files', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  const expectStrictPolicy = (response: Response) => {
    const policy = response.headers.get('content-security-policy') ?? '';
    for (const directive of expectedPolicy) expect(policy.split('; ')).toContain(directive);
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  };

  it('serves index.html at / with no-cache, an ETag, the CSP, and only external scripts and styles', async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expectStrictPolicy(response);
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son\w+=/);
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((match) => match[1]);
    const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((match) => match[1]);
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    for (const path of [...scripts, ...styles]) {
      expect(path).toMatch(/^\/ui\/\w+-[A-Z0-9]{8}\.(js|css)$/);
      const asset = await fetch(`${server.url}${path}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expectStrictPolicy(asset);
    }
    const revalidated = await fetch(`${server.url}/`, { headers: { 'if-none-match': response.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
  });

  it('answers 304 to a matching ETag and 404 to an unknown file', async () => {
    const [path, asset] = [...uiAssets].find(([name]) => name.endsWith('.js'))!;
    const fresh = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': `"other", ${asset.etag}` } });
    expect(fresh.status).toBe(304);
    const stale = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': '"other"' } });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('etag')).toBe(asset.etag);
    const head = await fetch(`${server.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(uiAssets.get('/')!.etag);
    // Only GET and HEAD: anything else goes on to the routes (none there).
    expect((await fetch(`${server.url}/`, { method: 'POST' })).status).toBe(404);
    const missing = await fetch(`${server.url}/ui/nothing-here.js`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('not_found');
  });

  it('weighs under 150 KB gzipped, every file together', () => {
    let total = 0;
    for (const asset of uiAssets.values()) total += gzipSync(asset.body, { level: 9 }).length;
    console.log(`admin UI: ${uiAssets.size} files, ${(total / 1024).toFixed(1)} KB gzipped`);
    expect(total).toBeGreaterThan(10_000);
    expect(total).toBeLessThan(maxGzippedBytes);
  });

  it('never renders markup from data: the UI sources set no HTML (dangerouslySetInnerHTML, innerHTML) and eval nothing', () => {
    const directory = join(import.meta.dirname, '..', '..', 'web', 'admin');
    for (const name of readdirSync(directory).filter((file) => file.endsWith('.js'))) {
      const source = readFileSync(join(directory, name), 'utf8');
      expect(source, name).not.toMatch(/dangerouslySetInnerHTML|innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\(/);
    }
  });
});
