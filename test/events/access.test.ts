// Access to the four Events v2 endpoints is exactly that of the V2 reports: the admin token or a query:read key of
// the site's workspace; a missing site and another workspace's site are the same 404; a key without the scope 403.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, testAdminToken, type TestServer } from '../_setup.ts';
import { SseClient } from './_helpers.ts';

let server: TestServer;
const tokens: Record<string, string> = {};
beforeAll(async () => {
  server = await startTestServer();
  tokens.reader = (await seedWorkspace(server, 'acme', { sites: ['mine'], scopes: ['query:read'] })).key!;
  tokens.ingestOnly = (await server.request('POST', '/workspaces/acme/keys', { body: { label: 'ingest', scopes: ['ingest:write'] } })).body.plaintext;
  tokens.foreign = (await seedWorkspace(server, 'rival', { sites: ['theirs'], scopes: ['query:read'] })).key!;
});
afterAll(() => server.close());

const endpoints = ['list-v2?from=2026-03-01&to=2026-03-02', 'overview-v2?from=2026-03-01&to=2026-03-02', 'activity-v2', 'stream-v2'];

async function call(path: string, token: string | null) {
  if (path.includes('stream-v2')) {
    if (token === null) return { status: (await fetch(server.url + path)).status, body: undefined };
    const opened = await SseClient.open(server, path, { token });
    opened.client?.close();
    return opened;
  }
  return server.request('GET', path, { token });
}

describe.each(endpoints)('%s', (endpoint) => {
  const path = (site: string) => `/sites/${site}/events/${endpoint}`;
  it.each([
    ['a query:read key of the workspace', 'mine', 'reader', 200, undefined],
    ['the admin token', 'mine', 'admin', 200, undefined],
    ['the /v1 path', 'mine', 'v1', 200, undefined],
    ['no credentials', 'mine', 'none', 401, 'unauthorized'],
    ['a key without query:read', 'mine', 'ingestOnly', 403, 'forbidden_scope'],
    ['a key of another workspace', 'mine', 'foreign', 404, 'not_found'],
    ['a missing site', 'nowhere', 'reader', 404, 'not_found'],
  ])('%s → %s', async (_name, site, who, status, code) => {
    const token = who === 'admin' || who === 'v1' ? testAdminToken : who === 'none' ? null : tokens[who]!;
    const response = await call(who === 'v1' ? `/v1${path(site)}` : path(site), token);
    expect(response.status).toBe(status);
    if (code && response.body) expect(response.body.error.code).toBe(code);
  });

  it('answers a foreign site exactly like a missing one', async () => {
    const foreign = await call(path('theirs'), tokens.reader!);
    const missing = await call(path('nowhere'), tokens.reader!);
    expect(foreign).toMatchObject({ status: 404, body: missing.body });
  });
});
