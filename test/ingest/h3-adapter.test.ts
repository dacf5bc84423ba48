// The h3 route over the shared ingest handler (app.fetch, no Node server) answers exactly like the fast path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'adapters', { sites: ['adapted'] });
});
afterAll(() => server.close());

async function viaFetch(path: string, body: string, headers: Record<string, string>) {
  const response = await server.app.fetch(new Request(`http://sightline.test${path}`, { method: 'POST', body, headers }));
  return { status: response.status, body: (await response.json()) as unknown, cors: response.headers.get('access-control-allow-origin') };
}

async function viaNode(path: string, body: string, headers: Record<string, string>) {
  const response = await fetch(server.url + path, { method: 'POST', body, headers });
  return { status: response.status, body: (await response.json()) as unknown, cors: response.headers.get('access-control-allow-origin') };
}

describe('both adapters', () => {
  // The same User-Agent both ways (Node's fetch would send its own, which is taken for a bot; a Request sends none).
  const json = { authorization: 'Bearer adapted', 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' };
  it.each([
    ['an accepted event', '/events', () => JSON.stringify(makeEvent('adapted')), json],
    ['an accepted event under /v1', '/v1/s2s/events', () => JSON.stringify(makeEvent('adapted')), json],
    ['a wrong bearer', '/events', () => JSON.stringify(makeEvent('adapted')), { ...json, authorization: 'Bearer nope' }],
    ['a wrong media type', '/events', () => JSON.stringify(makeEvent('adapted')), { ...json, 'content-type': 'text/csv' }],
    ['malformed JSON', '/events', () => '{"id":', json],
    ['an invalid event', '/events', () => JSON.stringify(makeEvent('adapted', { ts: 'soon' })), json],
    ['a body over 1 MiB', '/events', () => JSON.stringify(makeEvent('adapted', { props: { blob: 'x'.repeat(1024 * 1024) } })), json],
  ])('answer %s alike', async (_name, path, body, headers) => {
    const fetched = await viaFetch(path, body(), headers);
    const served = await viaNode(path, body(), headers);
    expect(fetched).toEqual(served);
  });
});
