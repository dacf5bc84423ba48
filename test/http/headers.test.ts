// Headers every answer carries, over real HTTP: X-Content-Type-Options: nosniff (h3 answers, the framework's own
// refusals and the ingest fast path), the standard reason phrase in the status line, and Cache-Control: no-store on
// the administrative answers (key creation carries a key's plaintext).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, startTestServer, testAdminToken, type TestServer } from '../_setup.ts';

interface Scenario {
  name: string;
  method: string;
  path: string;
  /** The bearer; null sends none; default the admin token. */
  token?: string | null | (() => string);
  body?: unknown;
  rawBody?: string;
  unroutable?: true;
  status: number;
  reason: string;
  /** Answers the operator's token or an admin key: never stored by a cache. */
  noStore: boolean;
}

let server: TestServer;
let adminKey: string;

const scenarios: Scenario[] = [
  { name: 'health', method: 'GET', path: '/healthz', token: null, status: 200, reason: 'OK', noStore: false },
  { name: 'an unknown route (h3 onError)', method: 'GET', path: '/no-such-route', unroutable: true, status: 404, reason: 'Not Found', noStore: false },
  { name: 'a malformed URL (h3 onError)', method: 'GET', path: '/%ZZ', unroutable: true, status: 400, reason: 'Bad Request', noStore: false },
  { name: 'the OpenAPI document', method: 'GET', path: '/v1/openapi.json', token: null, status: 200, reason: 'OK', noStore: false },
  { name: 'metrics (text)', method: 'GET', path: '/metrics', status: 200, reason: 'OK', noStore: false },
  { name: 'a report read', method: 'GET', path: '/v1/sites/hdr-site/events/list-v2?from=2026-01-01&to=2026-01-02', status: 200, reason: 'OK', noStore: false },
  { name: 'a report of a missing site', method: 'GET', path: '/v1/sites/missing/events/list-v2', status: 404, reason: 'Not Found', noStore: false },
  { name: 'the CORS preflight', method: 'OPTIONS', path: '/events', token: null, status: 204, reason: 'No Content', noStore: false },
  { name: 'ingest on the fast path', method: 'POST', path: '/events', token: 'hdr-site', body: makeEvent('hdr-site'), status: 202, reason: 'Accepted', noStore: false },
  { name: 'an ingest refusal on the fast path', method: 'POST', path: '/events', token: null, body: makeEvent('hdr-site'), status: 401, reason: 'Unauthorized', noStore: false },
  { name: 'invalid JSON on the fast path', method: 'POST', path: '/v1/s2s/events', token: 'hdr-site', rawBody: '{', status: 400, reason: 'Bad Request', noStore: false },
  { name: 'administration without a credential', method: 'GET', path: '/workspaces', token: null, status: 401, reason: 'Unauthorized', noStore: true },
  { name: 'the workspace list (admin token)', method: 'GET', path: '/workspaces', status: 200, reason: 'OK', noStore: true },
  { name: 'workspace creation (admin token)', method: 'POST', path: '/workspaces', body: { name: 'Made', slug: 'made' }, status: 201, reason: 'Created', noStore: true },
  { name: 'a workspace read', method: 'GET', path: '/v1/workspaces/hdr', status: 200, reason: 'OK', noStore: true },
  { name: 'key creation (admin token)', method: 'POST', path: '/workspaces/hdr/keys', body: { label: 'by token', scopes: ['query:read'] }, status: 201, reason: 'Created', noStore: true },
  { name: 'key creation (admin key)', method: 'POST', path: '/v1/workspaces/hdr/keys', token: () => adminKey, body: { label: 'by key', scopes: ['query:read'] }, status: 201, reason: 'Created', noStore: true },
  { name: 'key creation refused', method: 'POST', path: '/workspaces/hdr/keys', body: { label: 'bad', scopes: [] }, status: 400, reason: 'Bad Request', noStore: true },
  { name: 'the key list', method: 'GET', path: '/workspaces/hdr/keys', status: 200, reason: 'OK', noStore: true },
  { name: 'the audit log', method: 'GET', path: '/workspaces/hdr/audit', status: 200, reason: 'OK', noStore: true },
  { name: 'site deletion', method: 'DELETE', path: '/workspaces/hdr/sites/doomed', status: 204, reason: 'No Content', noStore: true },
];

beforeAll(async () => {
  server = await startTestServer();
  adminKey = (await seedWorkspace(server, 'hdr', { sites: ['hdr-site', 'doomed'], scopes: ['admin'] })).key!;
});
afterAll(() => server.close());

describe('every answer over HTTP', () => {
  it.each(scenarios)('$name: $method $path → $status $reason', async (scenario) => {
    const token = typeof scenario.token === 'function' ? scenario.token() : scenario.token;
    const response = await server.request(scenario.method, scenario.path, {
      token,
      body: scenario.body,
      ...(scenario.rawBody === undefined ? {} : { rawBody: scenario.rawBody, headers: { 'content-type': 'application/json' } }),
      ...(scenario.unroutable ? { unroutable: true as const } : {}),
    });
    expect(response.status, response.text).toBe(scenario.status);
    expect(response.statusText).toBe(scenario.reason);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    if (scenario.noStore) expect(response.headers.get('cache-control')).toBe('no-store');
    else expect(response.headers.get('cache-control') ?? '').not.toContain('no-store');
    if (scenario.name.startsWith('key creation (')) expect(response.body.plaintext).toMatch(/^sk_hdr_/);
  });

  it('the event stream: 200 OK with nosniff, as it opens', async () => {
    const url = new URL('/sites/hdr-site/events/stream-v2', server.url);
    const opened = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = httpRequest(url, { headers: { authorization: `Bearer ${testAdminToken}`, accept: 'text/event-stream' } }, resolve);
      outgoing.on('error', reject);
      outgoing.end();
    });
    try {
      expect([opened.statusCode, opened.statusMessage]).toEqual([200, 'OK']);
      expect(opened.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(opened.headers['x-content-type-options']).toBe('nosniff');
    } finally {
      opened.destroy();
    }
  });
});

describe('in process (app.fetch, the h3 ingest adapter)', () => {
  it.each([
    ['POST', '/events', 202, 'Accepted'],
    ['GET', '/no-such-route', 404, 'Not Found'],
    ['GET', '/workspaces', 200, 'OK'],
  ] as const)('%s %s → %i %s with nosniff', async (method, path, status, reason) => {
    const body = method === 'POST' ? JSON.stringify(makeEvent('hdr-site')) : undefined;
    const headers = { authorization: `Bearer ${method === 'POST' ? 'hdr-site' : testAdminToken}`, 'content-type': 'application/json' };
    const response = await server.app.fetch(new Request(`http://sightline.test${path}`, { method, headers, body }));
    await response.text();
    expect([response.status, response.statusText]).toEqual([status, reason]);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
