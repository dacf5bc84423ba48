// GET /workspaces/:slug/roi and /roi/compare over HTTP: spend against attributed revenue, kept apart per currency;
// ratios only where spend and revenue share one currency (mixed currencies, zero spend, spend without revenue);
// the model changes which campaign the revenue goes to; range edges; isolation and scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { createKey, expectFlatError, manualClock, prefixes } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';
import { purchase, utm, visit } from './_fixtures.ts';

let server: TestServer;
const tokens: Record<string, string> = {};
const june = (date: number, hour = 12) => Date.UTC(2026, 5, date, hour);

beforeAll(async () => {
  // A generous bound on the wait for the projector: no answer here depends on how fast it runs.
  server = await startTestServer({ clock: manualClock('2026-07-01T00:00:00.000Z'), projectionWaitMs: 30_000 });
  await seedWorkspace(server, 'acme', { sites: ['shop', 'blog'] });
  await seedWorkspace(server, 'other', { sites: ['other-shop'] });
  tokens.read = (await createKey(server, 'acme', ['query:read'])).plaintext;
  tokens.ingest = (await createKey(server, 'acme', ['ingest:write'])).plaintext;
  tokens.otherAdmin = (await createKey(server, 'other', ['admin'])).plaintext;
  await send(server, 'shop', [
    visit('shop', 'r1', june(18), { query: utm('google', 'cpc', 'spring') }),
    purchase('shop', 'r1', june(20), { amount: '100.00', currency: 'USD' }),
    visit('shop', 'r2', june(19), { query: utm('google', 'cpc', 'spring') }),
    purchase('shop', 'r2', june(21), { amount: '50.00', currency: 'USD' }),
    visit('shop', 'r3', june(19), { query: utm('facebook', 'social', 'summer') }),
    purchase('shop', 'r3', june(22), { amount: '3000', currency: 'JPY' }),
    visit('shop', 'r4', june(19), { query: utm('bing', 'cpc', 'brand') }),
    purchase('shop', 'r4', june(23), { amount: '10.00', currency: 'EUR' }),
    // No visit before it: unattributed.
    purchase('shop', 'r5', june(24), { amount: '5.00', currency: 'USD' }),
    // Two touches: google first, facebook last.
    visit('shop', 'r6', june(20), { query: utm('google', 'cpc', 'spring') }),
    visit('shop', 'r6', june(24), { query: utm('facebook', 'social', 'summer') }),
    purchase('shop', 'r6', june(25), { amount: '1000', currency: 'JPY' }),
  ]);
  // Another site of the workspace counts too (ROI is workspace-wide); another workspace never does.
  await send(server, 'other-shop', [visit('other-shop', 'x', june(19), { query: utm('google', 'cpc', 'spring') }), purchase('other-shop', 'x', june(20), { amount: '999.00', currency: 'USD' })]);
  const spend = await server.request('POST', '/v1/workspaces/acme/spend', {
    body: [
      { date: '2026-06-01', source: 'google', medium: 'cpc', campaign: 'spring', amount: '10.00', currency: 'USD' },
      { date: '2026-06-15', source: 'google', medium: 'cpc', campaign: 'spring', amount: '20.00', currency: 'USD' },
      { date: '2026-06-15', source: 'facebook', medium: 'social', campaign: 'summer', amount: '0', currency: 'JPY' },
      { date: '2026-06-15', source: 'bing', medium: 'cpc', campaign: 'brand', amount: '20.00', currency: 'USD' },
      { date: '2026-06-30', source: 'newsletter', medium: 'email', campaign: 'x', amount: '1.000', currency: 'KWD' },
      { date: '2026-05-31', source: 'google', medium: 'cpc', campaign: 'spring', amount: '999.00', currency: 'USD' },
    ],
  });
  expect(spend.status, spend.text).toBe(201);
  await server.request('POST', '/v1/workspaces/other/spend', { body: { date: '2026-06-01', source: 'google', medium: 'cpc', campaign: 'spring', amount: '1.00', currency: 'USD' } });
});
afterAll(() => server.close());

const roi = (query: string) => server.request('GET', `/v1/workspaces/acme/roi?${query}`);

describe('ROI', () => {
  it('keeps totals apart per currency, with ratios only where there is spend', async () => {
    const response = await roi('from=2026-06-01&to=2026-06-30');
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ from: '2026-06-01', to: '2026-06-30', model: 'last_touch' });
    expect(response.body.currencies).toEqual([
      { currency: 'EUR', spend: '0.00', revenue: '10.00', conversions: 1, roas: null, roi: null },
      { currency: 'JPY', spend: '0', revenue: '4000', conversions: 2, roas: null, roi: null },
      { currency: 'KWD', spend: '1.000', revenue: '0.000', conversions: 0, roas: 0, roi: -1 },
      { currency: 'USD', spend: '50.00', revenue: '155.00', conversions: 3, roas: 3.1, roi: 2.1 },
    ]);
  });

  it('per campaign: ratios only where spend and revenue share one currency', async () => {
    const response = await roi('from=2026-06-01&to=2026-06-30&model=last_touch');
    expect(response.body.campaigns).toEqual([
      // Unattributed (no touchpoint): revenue without spend, no ratio.
      { source: null, medium: null, campaign: null, spend: [], revenue: [{ currency: 'USD', amount: '5.00' }], conversions: 1 },
      // Mixed currencies: USD spend, EUR revenue.
      { source: 'bing', medium: 'cpc', campaign: 'brand', spend: [{ currency: 'USD', amount: '20.00' }], revenue: [{ currency: 'EUR', amount: '10.00' }], conversions: 1 },
      // Zero spend: no ratio of a zero.
      { source: 'facebook', medium: 'social', campaign: 'summer', spend: [{ currency: 'JPY', amount: '0' }], revenue: [{ currency: 'JPY', amount: '4000' }], conversions: 2 },
      { source: 'google', medium: 'cpc', campaign: 'spring', spend: [{ currency: 'USD', amount: '30.00' }], revenue: [{ currency: 'USD', amount: '150.00' }], conversions: 2, roas: 5, roi: 4 },
      // Spend without revenue: its one currency, so roas 0 and roi −1.
      { source: 'newsletter', medium: 'email', campaign: 'x', spend: [{ currency: 'KWD', amount: '1.000' }], revenue: [], conversions: 0, roas: 0, roi: -1 },
    ]);
  });

  it('the model decides where revenue goes: first touch gives google JPY revenue too, so no ratio there', async () => {
    const response = await roi('from=2026-06-01&to=2026-06-30&model=first_touch');
    const google = response.body.campaigns.find((row: { source: string }) => row.source === 'google');
    expect(google).toEqual({
      source: 'google',
      medium: 'cpc',
      campaign: 'spring',
      spend: [{ currency: 'USD', amount: '30.00' }],
      revenue: [
        { currency: 'JPY', amount: '1000' },
        { currency: 'USD', amount: '150.00' },
      ],
      conversions: 3,
    });
    const linear = await roi('from=2026-06-01&to=2026-06-30&model=linear');
    expect(linear.body.campaigns.find((row: { source: string }) => row.source === 'facebook').revenue).toEqual([{ currency: 'JPY', amount: '3500' }]);
  });

  it('only spend and purchases of the days of the range count', async () => {
    const may = await roi('from=2026-05-01&to=2026-05-31');
    expect(may.body.currencies).toEqual([{ currency: 'USD', spend: '999.00', revenue: '0.00', conversions: 0, roas: 0, roi: -1 }]);
    const day20 = await roi('from=2026-06-20&to=2026-06-20');
    expect(day20.body.currencies).toEqual([{ currency: 'USD', spend: '0.00', revenue: '100.00', conversions: 1, roas: null, roi: null }]);
  });

  it.each([
    ['366 days', 'from=2025-07-01&to=2026-07-01', 200, undefined, undefined],
    ['367 days', 'from=2025-07-01&to=2026-07-02', 400, 'range_too_large', '/to'],
    ['from after to', 'from=2026-06-02&to=2026-06-01', 400, 'invalid_date_range', '/from'],
    ['a timestamp', 'from=2026-06-01T00:00:00Z&to=2026-06-30', 400, 'invalid_date_param', '/from'],
    ['no to', 'from=2026-06-01', 400, 'invalid_date_param', '/to'],
    ['an unknown model', 'from=2026-06-01&to=2026-06-30&model=best', 400, 'unknown_model', '/model'],
  ])('%s', async (_name, query, status, code, pointer) => {
    const response = await roi(query);
    if (code) expectFlatError(response, status, code, [pointer!]);
    else expect(response.status, response.text).toBe(status);
  });
});

describe('ROI compare', () => {
  it('answers both ranges and the change per currency', async () => {
    const response = await server.request('GET', '/v1/workspaces/acme/roi/compare?from=2026-06-01&to=2026-06-30&compare_from=2026-05-01&compare_to=2026-05-31');
    expect(response.status, response.text).toBe(200);
    expect(response.body.current).toEqual((await roi('from=2026-06-01&to=2026-06-30')).body);
    expect(response.body.previous).toEqual((await roi('from=2026-05-01&to=2026-05-31')).body);
    expect(response.body.change.currencies).toEqual([
      { currency: 'EUR', spend: '0.00', revenue: '10.00', conversions: 1, roas: null, roi: null },
      { currency: 'JPY', spend: '0', revenue: '4000', conversions: 2, roas: null, roi: null },
      { currency: 'KWD', spend: '1.000', revenue: '0.000', conversions: 0, roas: null, roi: null },
      { currency: 'USD', spend: '-949.00', revenue: '155.00', conversions: 3, roas: 3.1, roi: 3.1 },
    ]);
  });

  it.each([
    ['no compare range', 'from=2026-06-01&to=2026-06-30', 'invalid_date_param', '/compare_from'],
    ['a compare range of 367 days', 'from=2026-06-01&to=2026-06-30&compare_from=2025-01-01&compare_to=2026-01-02', 'range_too_large', '/compare_to'],
    ['compare_from after compare_to', 'from=2026-06-01&to=2026-06-30&compare_from=2026-05-02&compare_to=2026-05-01', 'invalid_date_range', '/compare_from'],
  ])('refuses %s', async (_name, query, code, pointer) => {
    expectFlatError(await server.request('GET', `/v1/workspaces/acme/roi/compare?${query}`), 400, code, [pointer]);
  });

  it('takes a compare range of 366 days', async () => {
    const response = await server.request('GET', '/v1/workspaces/acme/roi/compare?from=2026-06-01&to=2026-06-30&compare_from=2025-01-01&compare_to=2026-01-01');
    expect(response.status, response.text).toBe(200);
  });
});

describe('amounts past what a double holds exactly', () => {
  it('sums spend exactly in ROI and its comparison, past 2^53 and past the 64-bit range of SQLite (was a 500)', async () => {
    await seedWorkspace(server, 'big');
    // 1,100 entries of the largest exact amount: the total is past 2^63 minor units.
    const entry = { date: '2026-06-10', source: 'google', medium: 'cpc', campaign: 'huge', amount: '90071992547409.91', currency: 'USD' };
    for (const count of [1000, 100]) {
      const created = await server.request('POST', '/v1/workspaces/big/spend', { body: Array.from({ length: count }, () => entry) });
      expect(created.status, created.text).toBe(201);
    }
    const total = 1100n * 9007199254740991n;
    const text = `${total / 100n}.${String(total % 100n).padStart(2, '0')}`;
    const response = await server.request('GET', '/v1/workspaces/big/roi?from=2026-06-01&to=2026-06-30');
    expect(response.status, response.text).toBe(200);
    expect(response.body.currencies).toEqual([{ currency: 'USD', spend: text, revenue: '0.00', conversions: 0, roas: 0, roi: -1 }]);
    expect(response.body.campaigns).toEqual([{ source: 'google', medium: 'cpc', campaign: 'huge', spend: [{ currency: 'USD', amount: text }], revenue: [], conversions: 0, roas: 0, roi: -1 }]);
    const compared = await server.request('GET', '/v1/workspaces/big/roi/compare?from=2026-05-01&to=2026-05-31&compare_from=2026-06-01&compare_to=2026-06-30');
    expect(compared.status, compared.text).toBe(200);
    expect(compared.body.change.currencies).toEqual([{ currency: 'USD', spend: `-${text}`, revenue: '0.00', conversions: 0, roas: null, roi: null }]);
  });
});

describe.each(prefixes)('isolation and scopes under "%s"', (prefix) => {
  const urls = (slug: string) => [`${prefix}/workspaces/${slug}/roi?from=2026-06-01&to=2026-06-30`, `${prefix}/workspaces/${slug}/roi/compare?from=2026-06-01&to=2026-06-30&compare_from=2026-05-01&compare_to=2026-05-31`];

  it('a foreign workspace answers exactly like a missing one; query:read reads; ingest:write is 403; none is 401', async () => {
    const [acmeRoi, acmeCompare] = urls('acme');
    const [missingRoi, missingCompare] = urls('no-such');
    for (const [url, missingUrl] of [[acmeRoi!, missingRoi!], [acmeCompare!, missingCompare!]] as [string, string][]) {
      const missing = await server.request('GET', missingUrl, { token: tokens.otherAdmin });
      expectFlatError(missing, 404, 'not_found');
      const foreign = await server.request('GET', url, { token: tokens.otherAdmin });
      expect(foreign.text).toBe(missing.text);
      expect((await server.request('GET', url, { token: tokens.read })).status).toBe(200);
      expectFlatError(await server.request('GET', url, { token: tokens.ingest }), 403, 'forbidden_scope');
      expectFlatError(await server.request('GET', url, { token: null }), 401, 'unauthorized');
    }
    const other = await server.request('GET', `${prefix}/workspaces/other/roi?from=2026-06-01&to=2026-06-30`, { token: tokens.otherAdmin });
    expect(other.body.currencies).toEqual([{ currency: 'USD', spend: '1.00', revenue: '999.00', conversions: 1, roas: 999, roi: 998 }]);
  });
});
