// list-v2's order=newest (the admin UI's events list starts with the newest): pages go back from the last event
// shown, events stored meanwhile never slip into a later page, a cursor of one order is refused in the other, and
// an unknown order is a structured 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { send, wireEvent } from './_helpers.ts';

let server: TestServer;
const range = 'from=2026-03-10&to=2026-03-10';

beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'lo', { sites: ['lo-site'] });
  await send(server, 'lo-site', ['01', '02', '03', '04', '05'].map((minute) => wireEvent('lo-site', { ts: `2026-03-10T10:${minute}:00.000Z`, type: `e${minute}` })));
});
afterAll(() => server.close());

async function list(query: string) {
  const response = await server.request('GET', `/v1/sites/lo-site/events/list-v2?${range}${query}`);
  return response;
}
const typesOf = (response: { body: { data: { events: { type: string }[] } } }) => response.body.data.events.map((event) => event.type);

describe('list-v2 order', () => {
  it.each([
    ['no order: ingest order', '', ['e01', 'e02', 'e03', 'e04', 'e05']],
    ['oldest', '&order=oldest', ['e01', 'e02', 'e03', 'e04', 'e05']],
    ['newest', '&order=newest', ['e05', 'e04', 'e03', 'e02', 'e01']],
  ])('%s', async (_name, query, types) => {
    const response = await list(query);
    expect(response.status, response.text).toBe(200);
    expect(typesOf(response)).toEqual(types);
  });

  it('pages newest first back from the last event shown; a later event waits for a fresh first page', async () => {
    const first = await list('&order=newest&limit=2');
    expect(typesOf(first)).toEqual(['e05', 'e04']);
    await send(server, 'lo-site', [wireEvent('lo-site', { ts: '2026-03-10T10:06:00.000Z', type: 'e06' })]);
    const second = await list(`&order=newest&limit=2&cursor=${encodeURIComponent(first.body.meta.cursor.next)}`);
    expect(typesOf(second)).toEqual(['e03', 'e02']);
    const third = await list(`&order=newest&limit=2&cursor=${encodeURIComponent(second.body.meta.cursor.next)}`);
    expect(typesOf(third)).toEqual(['e01']);
    expect(third.body.meta.cursor.next).toBeNull();
    expect(typesOf(await list('&order=newest&limit=1'))).toEqual(['e06']);
    // A cursor of one order is not one of the other.
    const refused = await list(`&limit=2&cursor=${encodeURIComponent(first.body.meta.cursor.next)}`);
    expect(refused.status).toBe(400);
  });

  it.each([['latest'], ['NEWEST'], ['']])('refuses order=%s', async (order) => {
    const response = await list(`&order=${order}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_param', details: [{ path: '/order' }] });
  });
});
