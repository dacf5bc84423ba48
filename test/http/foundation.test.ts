// The HTTP foundation: health and version, /v1 aliases, unknown routes, hidden 500s, body bounds, deprecation headers.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.ts';
import { addRoute } from '../../src/http/routes.ts';
import { startTestServer, type TestServer } from '../_setup.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    extend: (app) => {
      addRoute(app, {
        method: 'GET',
        path: '/test/deprecated',
        refusals: {},
        deprecation: { announced: new Date('2026-01-01T00:00:00Z'), sunset: new Date('2027-01-02T00:00:00Z'), link: 'https://docs.example/migrate' },
        handler: () => ({ ok: true }),
      });
      addRoute(app, {
        method: 'GET',
        path: '/test/explode',
        refusals: {},
        handler: () => {
          throw new Error('secret database detail');
        },
      });
      addRoute(app, {
        method: 'GET',
        path: '/workspaces-test/flat',
        refusals: { 400: ['invalid_param'] },
        envelope: 'flat',
        handler: () => {
          throw new ApiError(400, 'invalid_param', 'bad', [{ path: '/x', message: 'no' }]);
        },
      });
    },
  });
});
afterAll(() => server.close());

describe('health', () => {
  it.each(['/healthz', '/v1/healthz'])('%s answers ok without credentials', async (path) => {
    const response = await server.request('GET', path, { token: null });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('/v1/version answers the versions to the admin token only, and exists under /v1 only', async () => {
    const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    const response = await server.request('GET', '/v1/version');
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ sightline: packageVersion, node: process.versions.node, sqlite: expect.stringMatching(/^3\.\d+\.\d+$/) });
    expect(response.body.sightline).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect((await server.request('GET', '/v1/version', { token: null })).status).toBe(401);
    expect((await server.request('GET', '/v1/version', { token: 'not-the-admin-token' })).status).toBe(401);
    expect((await server.request('GET', '/version')).status).toBe(404);
  });
});

describe('errors', () => {
  it('an unknown route is a structured 404', async () => {
    for (const path of ['/nope', '/v1/nope', '/v2/whatever']) {
      const response = await server.request('GET', path);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: { code: 'not_found', message: 'No such route' } });
    }
  });

  it('an unexpected error is a 500 whose message is hidden', async () => {
    const response = await server.request('GET', '/test/explode');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: { code: 'internal_error', message: 'Internal server error' } });
    expect(response.text).not.toContain('secret');
  });

  it('the flat envelope carries the code at the top level', async () => {
    const response = await server.request('GET', '/workspaces-test/flat');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_param', message: 'bad', details: [{ path: '/x', message: 'no' }] });
  });
});

describe('deprecation', () => {
  it.each(['/test/deprecated', '/v1/test/deprecated'])('%s sends Deprecation, Sunset and Link (RFC 8594)', async (path) => {
    const response = await server.request('GET', path);
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
    expect(response.headers.get('sunset')).toBe('Sat, 02 Jan 2027 00:00:00 GMT');
    expect(response.headers.get('link')).toBe('<https://docs.example/migrate>; rel="deprecation"');
  });

  it('routes not marked deprecated send no such headers', async () => {
    const response = await server.request('GET', '/healthz');
    expect(response.headers.get('deprecation')).toBeNull();
    expect(response.headers.get('sunset')).toBeNull();
  });
});

describe('request bodies', () => {
  const oneMiB = 1024 * 1024;
  // A valid JSON document of exactly `size` bytes: the name is too long, so it is refused as a payload, not a size.
  const bodyOfSize = (size: number) => {
    const prefix = '{"slug":"big","name":"';
    const suffix = '"}';
    return prefix + 'x'.repeat(size - prefix.length - suffix.length) + suffix;
  };

  it('accepts a body of exactly 1 MiB and refuses one byte more with 413', async () => {
    const atLimit = await server.request('POST', '/workspaces', { rawBody: bodyOfSize(oneMiB), headers: { 'content-type': 'application/json' } });
    expect(atLimit.status).toBe(400);
    expect(atLimit.body.error).toBe('invalid_payload');
    const overLimit = await server.request('POST', '/workspaces', { rawBody: bodyOfSize(oneMiB + 1), headers: { 'content-type': 'application/json' } });
    expect(overLimit.status).toBe(413);
    expect(overLimit.body.error).toBe('payload_too_large');
  });

  it('refuses a chunked body past the limit while streaming', async () => {
    const big = new TextEncoder().encode(bodyOfSize(oneMiB + 10));
    const stream = new ReadableStream({
      start(controller) {
        for (let offset = 0; offset < big.length; offset += 65536) controller.enqueue(big.slice(offset, offset + 65536));
        controller.close();
      },
    });
    const response = await fetch(`${server.url}/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${'test-admin-token-0123456789abcdef'}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('refuses other media types with 415 and malformed JSON with invalid_json', async () => {
    const wrongType = await server.request('POST', '/workspaces', { rawBody: '{}', headers: { 'content-type': 'text/csv' } });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.error).toBe('unsupported_media_type');
    const malformed = await server.request('POST', '/workspaces', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('invalid_json');
    const empty = await server.request('POST', '/workspaces', { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(empty.body.error).toBe('invalid_json');
  });
});
