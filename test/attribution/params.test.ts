// GET /workspaces/:slug/attribution/results: every parameter at its edge (dates and timestamps, 366/367 days,
// limit 1/10,000/0/10,001), the stable error codes, inclusive timestamp bounds, the wait for the projector, and
// tenant isolation and scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { createKey, expectFlatError, manualClock, prefixes } from '../admin/_helpers.ts';
import { googlebot, send } from '../events/_helpers.ts';
import { purchase, utm, visit } from './_fixtures.ts';

let server: TestServer;
const tokens: Record<string, string> = {};
const at = Date.parse('2026-06-10T08:00:00.000Z');
let purchaseId: string;

beforeAll(async () => {
  // A generous bound on the wait for the projector: no answer here depends on how fast it runs.
  server = await startTestServer({ clock: manualClock('2026-07-01T00:00:00.000Z'), projectionWaitMs: 30_000 });
  await seedWorkspace(server, 'acme', { sites: ['shop'] });
  await seedWorkspace(server, 'other', { sites: ['other-shop'] });
  tokens.read = (await createKey(server, 'acme', ['query:read'])).plaintext;
  tokens.ingest = (await createKey(server, 'acme', ['ingest:write'])).plaintext;
  tokens.otherAdmin = (await createKey(server, 'other', ['admin'])).plaintext;
  const bought = purchase('shop', 'p1', at, { amount: '10.00', currency: 'USD' });
  purchaseId = bought.id as string;
  await send(server, 'shop', [visit('shop', 'p1', at - 60 * 60_000, { query: utm('google', 'cpc', 'x') }), bought]);
});
afterAll(() => server.close());

const path = (query: string) => `/v1/workspaces/acme/attribution/results?${query}`;
const ids = (body: { results: { conversion_id: string }[] }) => body.results.map((item) => item.conversion_id);

describe('parameters', () => {
  it.each([
    ['no model', 'from=2026-06-01&to=2026-06-30', 'invalid_param', '/model'],
    ['an unknown model', 'model=u_shaped&from=2026-06-01&to=2026-06-30', 'unknown_model', '/model'],
    ['no from', 'model=linear&to=2026-06-30', 'invalid_date_param', '/from'],
    ['no to', 'model=linear&from=2026-06-01', 'invalid_date_param', '/to'],
    ['a day that does not exist', 'model=linear&from=2026-02-30&to=2026-06-30', 'invalid_date_param', '/from'],
    ['a timestamp without an offset', 'model=linear&from=2026-06-01T00:00:00&to=2026-06-30', 'invalid_date_param', '/from'],
    ['from after to', 'model=linear&from=2026-06-30&to=2026-06-01', 'invalid_date_range', '/from'],
    ['367 days of dates', 'model=linear&from=2025-01-01&to=2026-01-02', 'range_too_large', '/to'],
    ['366 days and a millisecond of timestamps', 'model=linear&from=2025-01-01T00:00:00Z&to=2026-01-02T00:00:00Z', 'range_too_large', '/to'],
    ['limit 0', 'model=linear&from=2026-06-01&to=2026-06-30&limit=0', 'invalid_param', '/limit'],
    ['limit 10,001', 'model=linear&from=2026-06-01&to=2026-06-30&limit=10001', 'invalid_param', '/limit'],
    ['a cursor this server did not issue', 'model=linear&from=2026-06-01&to=2026-06-30&cursor=abc.def', 'invalid_param', '/cursor'],
    ['an empty conversion_id', 'model=linear&from=2026-06-01&to=2026-06-30&conversion_id=', 'invalid_param', '/conversion_id'],
  ])('refuses %s', async (_name, query, code, pointer) => {
    expectFlatError(await server.request('GET', path(query)), 400, code, [pointer]);
  });

  it.each([
    ['366 days of dates', 'from=2025-01-01&to=2026-01-01'],
    ['366 days of timestamps, to its last millisecond', 'from=2025-01-01T00:00:00Z&to=2026-01-01T23:59:59.999Z'],
    ['one day', 'from=2026-06-10&to=2026-06-10'],
    ['limit 1', 'from=2026-06-01&to=2026-06-30&limit=1'],
    ['limit 10,000', 'from=2026-06-01&to=2026-06-30&limit=10000'],
    ['a date and a timestamp', 'from=2026-06-01&to=2026-06-30T23:00:00-05:00'],
  ])('accepts %s', async (_name, query) => {
    for (const model of ['first_touch', 'last_touch', 'last_non_direct', 'linear', 'position_based', 'time_decay']) {
      const response = await server.request('GET', path(`model=${model}&${query}`));
      expect(response.status, response.text).toBe(200);
    }
  });

  it('timestamp bounds are inclusive and honour their offset', async () => {
    // The purchase is at 08:00Z, which is 10:00 at +02:00.
    expect(ids((await server.request('GET', path('model=linear&from=2026-06-10T10:00:00%2B02:00&to=2026-06-10T10:00:00%2B02:00'))).body)).toEqual([purchaseId]);
    expect(ids((await server.request('GET', path('model=linear&from=2026-06-01&to=2026-06-10T09:59:59.999%2B02:00'))).body)).toEqual([]);
    expect(ids((await server.request('GET', path('model=linear&from=2026-06-10T08:00:00.001Z&to=2026-06-30'))).body)).toEqual([]);
    // A date as `to` runs to the end of that UTC day; as `from`, from its start.
    expect(ids((await server.request('GET', path('model=linear&from=2026-06-10&to=2026-06-10'))).body)).toEqual([purchaseId]);
    expect(ids((await server.request('GET', path('model=linear&from=2026-06-11&to=2026-06-30'))).body)).toEqual([]);
  });

  it('purchases of bots and internal traffic are not conversions', async () => {
    const bot: Record<string, unknown> = { ...purchase('shop', 'bot-1', at + 2 * 60_000), context: { user_agent: googlebot } };
    const internal: Record<string, unknown> = { ...purchase('shop', 'staff-1', at + 3 * 60_000), internal: true };
    await send(server, 'shop', [bot, internal]);
    const response = await server.request('GET', path('model=linear&from=2026-06-10&to=2026-06-10'));
    expect(ids(response.body)).not.toContain(bot.id);
    expect(ids(response.body)).not.toContain(internal.id);
    expect(ids(response.body)).toContain(purchaseId);
  });

  it('a read right after the purchase is acknowledged counts it (it waits for the projector)', async () => {
    const late = purchase('shop', 'p2', at + 60_000);
    await send(server, 'shop', [visit('shop', 'p2', at, { referrer: 'https://ref.example/' }), late]);
    const response = await server.request('GET', path(`model=last_touch&from=2026-06-10&to=2026-06-10&conversion_id=${late.id}`));
    expect(response.body.results).toHaveLength(1);
    expect(response.body.results[0].touchpoints.map((touch: { source: string }) => touch.source)).toEqual(['ref.example']);
  });
});

describe.each(prefixes)('isolation and scopes under "%s"', (prefix) => {
  const url = (slug: string) => `${prefix}/workspaces/${slug}/attribution/results?model=linear&from=2026-06-01&to=2026-06-30`;

  it('a foreign workspace answers exactly like a missing one', async () => {
    const missing = await server.request('GET', url('no-such'), { token: tokens.otherAdmin });
    expectFlatError(missing, 404, 'not_found');
    const foreign = await server.request('GET', url('acme'), { token: tokens.otherAdmin });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
  });

  it('query:read reads; ingest:write is 403; no credential is 401; other workspaces see none of it', async () => {
    const read = await server.request('GET', url('acme'), { token: tokens.read });
    expect(read.status, read.text).toBe(200);
    expect(ids(read.body)).toContain(purchaseId);
    expectFlatError(await server.request('GET', url('acme'), { token: tokens.ingest }), 403, 'forbidden_scope');
    expectFlatError(await server.request('GET', url('acme'), { token: null }), 401, 'unauthorized');
    const other = await server.request('GET', url('other'), { token: tokens.otherAdmin });
    expect(other.body.results).toEqual([]);
  });

  it('parameters are checked only after access: a foreign caller learns nothing from a bad query', async () => {
    const missing = await server.request('GET', `${prefix}/workspaces/no-such/attribution/results`, { token: tokens.otherAdmin });
    const foreign = await server.request('GET', `${prefix}/workspaces/acme/attribution/results`, { token: tokens.otherAdmin });
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
  });
});

describe('query plan', () => {
  it("finds a user's anon_ids through identities_by_user, never every binding of the site", async () => {
    const { anonIdsOfUserSql } = await import('../../src/projector/queries/identity-rows.ts');
    const details = (server.db.prepare(`EXPLAIN QUERY PLAN ${anonIdsOfUserSql}`).all({ site_id: 's', user_id: 'u' }) as { detail: string }[]).map((row) => row.detail);
    expect(details.filter((detail) => /^(SEARCH|SCAN) identities/.test(detail))).toEqual(['SEARCH identities USING INDEX identities_by_user (site_id=? AND user_id=?)']);
  });
});
