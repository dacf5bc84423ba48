// The spend endpoints over HTTP: exact money per ISO 4217 exponent, one entry or many (all or nothing), the range
// and limit edges, PATCH and DELETE, audit rows, and tenant isolation and scopes of every route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { createKey, expectFlatError, uuidPattern } from '../admin/_helpers.ts';
import { spendRowCount } from './_helpers.ts';

let server: TestServer;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'alpha', { sites: ['alpha-site'] });
  await seedWorkspace(server, 'beta', { sites: ['beta-site'] });
  tokens.alphaRead = (await createKey(server, 'alpha', ['query:read'])).plaintext;
  tokens.alphaAdmin = (await createKey(server, 'alpha', ['admin'])).plaintext;
  tokens.alphaIngest = (await createKey(server, 'alpha', ['ingest:write'])).plaintext;
  tokens.betaAdmin = (await createKey(server, 'beta', ['admin'])).plaintext;
});
afterAll(() => server.close());

const entry = (overrides: Record<string, unknown> = {}) => ({ date: '2026-02-01', source: 'google', medium: 'cpc', campaign: 'spring', amount: '12.50', currency: 'USD', ...overrides });

async function clearSpend(slug = 'alpha'): Promise<void> {
  const response = await server.request('DELETE', `/v1/workspaces/${slug}/spend?from=2025-06-01&to=2026-06-01`);
  expect(response.status, response.text).toBe(200);
}

describe('money is exact, in the minor units of each currency', () => {
  it.each([
    ['USD', '12.50', 1250, '12.50'],
    ['USD', '12.5', 1250, '12.50'],
    ['USD', '0', 0, '0.00'],
    ['JPY', '1200', 1200, '1200'],
    ['JPY', '1200.000', 1200, '1200'],
    ['KWD', '1.250', 1250, '1.250'],
    ['KWD', '0.001', 1, '0.001'],
    ['EUR', '999999999999999.99', 99999999999999999, undefined],
  ])('%s %s is stored as %i minor units and answered as %s', async (currency, amount, minor, answered) => {
    const response = await server.request('POST', '/v1/workspaces/alpha/spend', { body: entry({ currency, amount }) });
    if (answered === undefined) {
      // Past the exact integer range: refused rather than rounded.
      expectFlatError(response, 400, 'invalid_payload', ['/amount']);
      return;
    }
    expect(response.status, response.text).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(uuidPattern),
      date: '2026-02-01',
      source: 'google',
      medium: 'cpc',
      campaign: 'spring',
      amount: answered,
      currency,
      site_id: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const stored = server.db.prepare('SELECT amount_minor, typeof(amount_minor) AS type FROM spend WHERE id = ?').get(response.body.id) as { amount_minor: number; type: string };
    expect(stored).toEqual({ amount_minor: minor, type: 'integer' });
  });

  it.each([
    ['more decimals than USD has', { amount: '12.505' }, '/amount'],
    ['decimals JPY does not have', { currency: 'JPY', amount: '12.5' }, '/amount'],
    ['more decimals than KWD has', { currency: 'KWD', amount: '1.2345' }, '/amount'],
    ['a JSON number (floats are never taken)', { amount: 12.5 }, '/amount'],
    ['a negative amount', { amount: '-1.00' }, '/amount'],
    ['an exponent', { amount: '1e3' }, '/amount'],
    ['an unknown currency', { currency: 'XYZ' }, '/currency'],
    // Codes Intl cannot even parse made the amount check throw: 500 (issue 24, defect 6).
    ['a currency of four letters ("EURO")', { currency: 'EURO' }, '/currency'],
    ['an empty currency', { currency: '' }, '/currency'],
    ['a currency with a digit', { currency: 'EU1' }, '/currency'],
    ['a currency in lower case', { currency: 'usd' }, '/currency'],
    ['a missing currency', { currency: undefined }, '/currency'],
    ['a date that does not exist', { date: '2026-02-30' }, '/date'],
    ['an empty source', { source: ' ' }, '/source'],
    ['an unknown field', { cost: '1' }, '/cost'],
    ['a site of another workspace', { site_id: 'beta-site' }, '/site_id'],
    ['a site that does not exist', { site_id: 'nowhere' }, '/site_id'],
  ])('refuses %s with 400 invalid_payload, storing nothing', async (_name, overrides, path) => {
    const before = spendRowCount(server);
    const response = await server.request('POST', '/v1/workspaces/alpha/spend', { body: entry(overrides) });
    expectFlatError(response, 400, 'invalid_payload', [path]);
    expect(spendRowCount(server)).toBe(before);
  });

  it('says in the message which field is wrong and why (flat-envelope clients may read nothing else)', async () => {
    const response = await server.request('POST', '/v1/workspaces/alpha/spend', { body: entry({ currency: 'EURO' }) });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual({
      error: 'invalid_payload',
      message: 'Invalid spend entry: /currency must be a known ISO 4217 currency code in upper case, such as USD',
      details: [{ path: '/currency', message: 'must be a known ISO 4217 currency code in upper case, such as USD' }],
    });
    const two = await server.request('POST', '/v1/workspaces/alpha/spend', { body: [entry(), entry({ currency: 'EURO', date: 'soon' })] });
    expect(two.body.message).toBe('Invalid spend entry: /1/date must be a date as YYYY-MM-DD (and 1 more problem in details)');
  });

  it('a foreign site and a missing one are refused with the same answer', async () => {
    const foreign = await server.request('POST', '/v1/workspaces/alpha/spend', { body: entry({ site_id: 'beta-site' }) });
    const missing = await server.request('POST', '/v1/workspaces/alpha/spend', { body: entry({ site_id: 'nowhere' }) });
    expect(foreign.text).toBe(missing.text);
  });

  it('keeps an entry of a site of the workspace, and deleting the site deletes its spend', async () => {
    await server.request('POST', '/v1/workspaces/alpha/sites', { body: { id: 'doomed', name: 'Doomed' } });
    const created = await server.request('POST', '/v1/workspaces/alpha/spend', { body: entry({ site_id: 'doomed' }) });
    expect(created.status, created.text).toBe(201);
    expect(created.body.site_id).toBe('doomed');
    expect((await server.request('DELETE', '/v1/workspaces/alpha/sites/doomed')).status).toBe(204);
    expect(server.db.prepare('SELECT count(*) AS n FROM spend WHERE id = ?').get(created.body.id)).toEqual({ n: 0 });
  });
});

describe('POST with an array', () => {
  it('stores every entry and answers them in order', async () => {
    await clearSpend();
    const response = await server.request('POST', '/v1/workspaces/alpha/spend', {
      body: [entry({ campaign: 'a' }), entry({ campaign: 'b', medium: null }), entry({ campaign: 'c', medium: '' })],
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.entries.map((item: { campaign: string; medium: string | null }) => [item.campaign, item.medium])).toEqual([
      ['a', 'cpc'],
      ['b', null],
      ['c', null],
    ]);
    expect(spendRowCount(server)).toBe(3);
  });

  it('refuses the whole array when one entry is bad, naming it by index', async () => {
    const before = spendRowCount(server);
    const response = await server.request('POST', '/v1/workspaces/alpha/spend', { body: [entry(), entry({ amount: 'ten' }), entry()] });
    expectFlatError(response, 400, 'invalid_payload', ['/1/amount']);
    expect(spendRowCount(server)).toBe(before);
  });

  it('refuses an empty array and one of 1001 entries; takes 1000', async () => {
    expectFlatError(await server.request('POST', '/v1/workspaces/alpha/spend', { body: [] }), 400, 'invalid_payload', ['']);
    expectFlatError(await server.request('POST', '/v1/workspaces/alpha/spend', { body: Array.from({ length: 1001 }, () => entry()) }), 400, 'invalid_payload', ['']);
    const full = await server.request('POST', '/v1/workspaces/alpha/spend', { body: Array.from({ length: 1000 }, () => entry({ campaign: 'bulk' })) });
    expect(full.status, full.text).toBe(201);
    expect(full.body.entries).toHaveLength(1000);
    await clearSpend();
  });
});

describe('GET: ranges, filters, pages', () => {
  beforeAll(async () => {
    await clearSpend();
    const response = await server.request('POST', '/v1/workspaces/alpha/spend', {
      body: [
        entry({ date: '2026-01-03', campaign: 'c1' }),
        entry({ date: '2026-01-01', campaign: 'c1' }),
        entry({ date: '2026-01-02', source: 'bing', campaign: 'c2', amount: '3', currency: 'EUR' }),
        entry({ date: '2025-01-01', campaign: 'old' }),
      ],
    });
    expect(response.status, response.text).toBe(201);
    await server.request('POST', '/v1/workspaces/beta/spend', { body: entry({ date: '2026-01-01', campaign: 'beta-only' }) });
  });

  it('lists the range by date, only of this workspace', async () => {
    const response = await server.request('GET', '/v1/workspaces/alpha/spend?from=2026-01-01&to=2026-01-31');
    expect(response.status, response.text).toBe(200);
    expect(response.body.entries.map((item: { date: string; campaign: string }) => `${item.date} ${item.campaign}`)).toEqual(['2026-01-01 c1', '2026-01-02 c2', '2026-01-03 c1']);
    expect(response.body.next_cursor).toBeNull();
    expect(response.body.entries[1]).toMatchObject({ amount: '3.00', currency: 'EUR' });
  });

  it('filters by source and by campaign', async () => {
    const bySource = await server.request('GET', '/v1/workspaces/alpha/spend?from=2026-01-01&to=2026-01-31&source=bing');
    expect(bySource.body.entries.map((item: { campaign: string }) => item.campaign)).toEqual(['c2']);
    const byCampaign = await server.request('GET', '/v1/workspaces/alpha/spend?from=2025-01-01&to=2025-12-31&campaign=old');
    expect(byCampaign.body.entries).toHaveLength(1);
  });

  it('pages with an opaque cursor, nothing lost or repeated', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response: { status: number; body: { entries: { date: string }[]; next_cursor: string | null } } = await server.request(
        'GET',
        `/v1/workspaces/alpha/spend?from=2026-01-01&to=2026-01-31&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(response.status).toBe(200);
      seen.push(...response.body.entries.map((item) => item.date));
      cursor = response.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['2026-01-01', '2026-01-02', '2026-01-03']);
    expectFlatError(await server.request('GET', '/v1/workspaces/alpha/spend?from=2026-01-01&to=2026-01-31&cursor=bogus'), 400, 'invalid_param', ['/cursor']);
  });

  it.each([
    ['366 days', 'from=2025-01-01&to=2026-01-01', 200, undefined, undefined],
    ['367 days', 'from=2025-01-01&to=2026-01-02', 400, 'range_too_large', '/to'],
    ['a single day', 'from=2026-01-01&to=2026-01-01', 200, undefined, undefined],
    ['from after to', 'from=2026-01-02&to=2026-01-01', 400, 'invalid_date_range', '/from'],
    ['no from', 'to=2026-01-01', 400, 'invalid_date_param', '/from'],
    ['a timestamp instead of a date', 'from=2026-01-01T00:00:00Z&to=2026-01-02', 400, 'invalid_date_param', '/from'],
    ['limit 1', 'from=2026-01-01&to=2026-01-02&limit=1', 200, undefined, undefined],
    ['limit 1000', 'from=2026-01-01&to=2026-01-02&limit=1000', 200, undefined, undefined],
    ['limit 0', 'from=2026-01-01&to=2026-01-02&limit=0', 400, 'invalid_param', '/limit'],
    ['limit 1001', 'from=2026-01-01&to=2026-01-02&limit=1001', 400, 'invalid_param', '/limit'],
  ])('%s: %s', async (_name, query, status, code, path) => {
    const response = await server.request('GET', `/v1/workspaces/alpha/spend?${query}`);
    if (code) expectFlatError(response, status, code, [path!]);
    else expect(response.status, response.text).toBe(status);
  });
});

describe('PATCH and DELETE', () => {
  it('changes fields of one entry; a currency change needs its amount', async () => {
    const created = (await server.request('POST', '/v1/workspaces/alpha/spend', { body: entry({ date: '2026-03-01' }) })).body;
    const amount = await server.request('PATCH', `/v1/workspaces/alpha/spend/${created.id}`, { body: { amount: '20', campaign: 'summer' } });
    expect(amount.status, amount.text).toBe(200);
    expect(amount.body).toMatchObject({ id: created.id, amount: '20.00', campaign: 'summer', currency: 'USD', created_at: created.created_at });
    expectFlatError(await server.request('PATCH', `/v1/workspaces/alpha/spend/${created.id}`, { body: { currency: 'JPY' } }), 400, 'invalid_payload', ['/amount']);
    expectFlatError(await server.request('PATCH', `/v1/workspaces/alpha/spend/${created.id}`, { body: { currency: 'JPY', amount: '20.5' } }), 400, 'invalid_payload', ['/amount']);
    const yen = await server.request('PATCH', `/v1/workspaces/alpha/spend/${created.id}`, { body: { currency: 'JPY', amount: '2000' } });
    expect(yen.body).toMatchObject({ amount: '2000', currency: 'JPY' });
    expectFlatError(await server.request('PATCH', `/v1/workspaces/alpha/spend/${created.id}`, { body: {} }), 400, 'invalid_payload', ['']);
    expectFlatError(await server.request('PATCH', `/v1/workspaces/alpha/spend/${created.id}`, { body: { currency: 'ABC', amount: '1' } }), 400, 'invalid_payload', ['/currency']);
    expectFlatError(await server.request('PATCH', `/v1/workspaces/alpha/spend/${created.id}`, { body: { currency: 'EURO', amount: '1' } }), 400, 'invalid_payload', ['/currency']);
    expectFlatError(await server.request('PATCH', `/v1/workspaces/alpha/spend/${created.id}`, { body: { currency: 'EURO' } }), 400, 'invalid_payload', ['/amount']);
  });

  it('an entry of another workspace is the same 404 as a missing one', async () => {
    const beta = (await server.request('POST', '/v1/workspaces/beta/spend', { body: entry() })).body;
    const foreign = await server.request('PATCH', `/v1/workspaces/alpha/spend/${beta.id}`, { body: { amount: '1' } });
    const missing = await server.request('PATCH', `/v1/workspaces/alpha/spend/${crypto.randomUUID()}`, { body: { amount: '1' } });
    expectFlatError(foreign, 404, 'not_found');
    expect(foreign.text).toBe(missing.text);
    const untouched = await server.request('GET', '/v1/workspaces/beta/spend?from=2026-02-01&to=2026-02-01');
    expect(untouched.body.entries.find((item: { id: string }) => item.id === beta.id).amount).toBe('12.50');
  });

  it('DELETE removes the range of this workspace only, optionally one source or campaign', async () => {
    await clearSpend();
    await server.request('POST', '/v1/workspaces/alpha/spend', {
      body: [entry({ date: '2026-04-01' }), entry({ date: '2026-04-02', source: 'bing' }), entry({ date: '2026-04-03', campaign: 'x' }), entry({ date: '2026-05-01' })],
    });
    const betaBefore = (await server.request('GET', '/v1/workspaces/beta/spend?from=2025-06-01&to=2026-06-01')).body.entries.length;
    expect((await server.request('DELETE', '/v1/workspaces/alpha/spend?from=2026-04-01&to=2026-04-30&source=bing')).body).toEqual({ deleted: 1 });
    expect((await server.request('DELETE', '/v1/workspaces/alpha/spend?from=2026-04-01&to=2026-04-30&campaign=x')).body).toEqual({ deleted: 1 });
    expect((await server.request('DELETE', '/v1/workspaces/alpha/spend?from=2026-04-01&to=2026-04-30')).body).toEqual({ deleted: 1 });
    expect((await server.request('GET', '/v1/workspaces/alpha/spend?from=2026-04-01&to=2026-05-31')).body.entries.map((item: { date: string }) => item.date)).toEqual(['2026-05-01']);
    expect((await server.request('GET', '/v1/workspaces/beta/spend?from=2025-06-01&to=2026-06-01')).body.entries.length).toBe(betaBefore);
    expectFlatError(await server.request('DELETE', '/v1/workspaces/alpha/spend?from=2025-01-01&to=2026-01-02'), 400, 'range_too_large', ['/to']);
    expectFlatError(await server.request('DELETE', '/v1/workspaces/alpha/spend'), 400, 'invalid_date_param', ['/from']);
  });

  it('every write is audited with its own action', async () => {
    const audit = await server.request('GET', '/v1/workspaces/alpha/audit?limit=1000');
    const actions = new Set(audit.body.entries.map((item: { action: string }) => item.action));
    for (const action of ['spend.create', 'spend.update', 'spend.delete']) expect(actions.has(action), action).toBe(true);
    const update = audit.body.entries.find((item: { action: string }) => item.action === 'spend.update');
    expect(update).toMatchObject({ actor_kind: 'admin', target: expect.stringMatching(uuidPattern), metadata: { fields: expect.any(Array) } });
  });
});

describe('scopes and tenant isolation of every spend route', () => {
  const routes = [
    { method: 'GET', url: '/workspaces/alpha/spend?from=2026-01-01&to=2026-01-02', read: true },
    { method: 'POST', url: '/workspaces/alpha/spend', body: entry() },
    { method: 'POST', url: '/workspaces/alpha/spend/csv', csv: 'date,source,medium,campaign,amount,currency\n2026-01-01,g,,,1,USD\n' },
    { method: 'PATCH', url: `/workspaces/alpha/spend/${crypto.randomUUID()}`, body: { amount: '1' } },
    { method: 'DELETE', url: '/workspaces/alpha/spend?from=2026-01-01&to=2026-01-02' },
  ];
  const send = (route: (typeof routes)[number], prefix: string, token: string | null, slug = 'alpha') =>
    server.request(route.method, prefix + route.url.replace('/alpha/', `/${slug}/`), {
      token,
      ...(route.csv ? { rawBody: route.csv, headers: { 'content-type': 'text/csv' } } : { body: route.body }),
    });

  for (const prefix of ['', '/v1']) {
    for (const route of routes) {
      it(`${route.method} ${prefix}${route.url.split('?')[0]}`, async () => {
        const missing = await send(route, prefix, tokens.alphaAdmin!, 'no-such-workspace');
        expectFlatError(missing, 404, 'not_found');
        // beta's admin key probing alpha: exactly the answer of a workspace that does not exist.
        const foreign = await send(route, prefix, tokens.betaAdmin!);
        expect(foreign.status).toBe(404);
        expect(foreign.text).toBe(missing.text);
        expectFlatError(await send(route, prefix, null), 401, 'unauthorized');
        expectFlatError(await send(route, prefix, tokens.alphaIngest!), 403, 'forbidden_scope');
        const read = await send(route, prefix, tokens.alphaRead!);
        if (route.read) expect(read.status, read.text).toBe(200);
        else expectFlatError(read, 403, 'forbidden_scope');
        const admin = await send(route, prefix, tokens.alphaAdmin!);
        // PATCH of a random id is a 404 for the admin key too; everything else succeeds.
        expect(admin.status, admin.text).toBe(route.method === 'PATCH' ? 404 : route.method === 'POST' ? 201 : 200);
      });
    }
  }

  it('an admin API key is recorded as the actor', async () => {
    const audit = await server.request('GET', '/v1/workspaces/alpha/audit?limit=1000');
    const byKey = audit.body.entries.filter((item: { action: string; actor_kind: string }) => item.action.startsWith('spend.') && item.actor_kind === 'apiKey');
    expect(byKey.length).toBeGreaterThan(0);
  });
});
