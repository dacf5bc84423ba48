// Every Events v2 endpoint takes the common report parameters (spec, "Common report parameters"), so a client may
// send one parameter set to all four; only scope is refused by stream-v2 (a stream tails one site). The published
// document lists what each endpoint accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi/document.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { SseClient } from './_helpers.ts';

let server: TestServer;
const open: SseClient[] = [];
beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'acme', { sites: ['mine'] });
});
afterAll(async () => {
  for (const client of open) client.close();
  await server.close();
});

const endpoints = ['list-v2', 'overview-v2', 'activity-v2', 'stream-v2'];
const common = 'from=2026-03-01&to=2026-03-02&source=google.com&device=desktop&browser=Chrome&os=Windows&country=US&region=CA&city=Fresno&path=/a&internal=include&timezone=UTC&bots=exclude';

async function call(endpoint: string, query: string) {
  const path = `/sites/mine/events/${endpoint}?${query}`;
  if (endpoint !== 'stream-v2') return server.request('GET', path);
  const opened = await SseClient.open(server, path);
  if (opened.client) open.push(opened.client);
  return opened;
}

describe('the common parameters on every Events endpoint', () => {
  it.each(endpoints)('%s accepts the full set', async (endpoint) => {
    const response = await call(endpoint, common);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it.each(endpoints)('%s with scope=all-sites', async (endpoint) => {
    const response = await call(endpoint, `${common}&scope=all-sites`);
    if (endpoint !== 'stream-v2') return expect(response.status).toBe(200);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: { code: 'invalid_param', message: expect.any(String), details: [{ path: '/scope', message: expect.stringContaining('one site') }] } });
  });

  it('are listed in the published document, from/to required only where a range is', async () => {
    const document = (await server.request('GET', '/v1/openapi.json', { token: null })).body as OpenApiDocument;
    const names = ['from', 'to', 'scope', 'source', 'device', 'browser', 'os', 'country', 'region', 'city', 'path', 'internal', 'timezone', 'bots'];
    for (const endpoint of endpoints) {
      const parameters = document.paths[`/v1/sites/{siteId}/events/${endpoint}`]!.get!.parameters as unknown as { name: string; in: string; required: boolean }[];
      const query = parameters.filter((parameter) => parameter.in === 'query');
      const expected = endpoint === 'stream-v2' ? names.filter((name) => name !== 'scope') : names;
      expect(query.map((parameter) => parameter.name), endpoint).toEqual(expect.arrayContaining(expected));
      if (endpoint === 'stream-v2') expect(query.map((parameter) => parameter.name)).not.toContain('scope');
      const required = query.filter((parameter) => parameter.required).map((parameter) => parameter.name);
      expect(required, endpoint).toEqual(['list-v2', 'overview-v2'].includes(endpoint) ? ['from', 'to'] : []);
    }
  });
});
