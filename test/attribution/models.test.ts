// Hand-computed attribution fixtures for every model over HTTP: a four-visit journey, a tie between two devices of
// one person, a single touch, a direct-only journey, a conversion with no visit, and the rounding of thirds. Credits
// were computed by hand (time decay: 2^(−Δ/7 days), normalised, in millionths by largest remainder).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';
import { day, iso, minute, purchase, T, utm, visit } from './_fixtures.ts';

let server: TestServer;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // A generous bound on the wait for the projector: no answer here depends on how fast it runs.
  server = await startTestServer({ clock: manualClock('2026-07-01T00:00:00.000Z'), projectionWaitMs: 30_000 });
  await seedWorkspace(server, 'acme', { sites: ['shop'] });
  await seedWorkspace(server, 'other', { sites: ['other-shop'] });
  const a = purchase('shop', 'a1', T, { amount: '100.00', currency: 'USD' });
  const b = purchase('shop', 'b2', T - 2 * minute, { amount: '3001', currency: 'JPY' }, 'u1');
  const c = purchase('shop', 'c1', T - day);
  const d = purchase('shop', 'd1', T - day, { amount: '1.250', currency: 'KWD' });
  const e = purchase('shop', 'e1', T - 6 * 60 * minute, { amount: '50', currency: 'EUR' });
  const f = purchase('shop', 'f1', T - 3 * day, { amount: '0.10', currency: 'USD' });
  Object.assign(ids, { a: a.id, b: b.id, c: c.id, d: d.id, e: e.id, f: f.id });
  await send(server, 'shop', [
    // A: google 20 days before, direct 10 days before, a referral 3 days before, and the visit of the purchase
    // (direct, 10 minutes before); a bing visit 31 days before is outside the 30-day window.
    visit('shop', 'a1', T - 31 * day, { query: utm('bing', 'cpc', 'old') }),
    visit('shop', 'a1', T - 20 * day, { query: utm('google', 'cpc', 'spring') }),
    visit('shop', 'a1', T - 10 * day),
    visit('shop', 'a1', T - 3 * day, { referrer: 'https://www.news.example/story' }),
    visit('shop', 'a1', T - 10 * minute),
    a,
    // B: one person (u1) on two devices, both visits starting at the same millisecond: ordered by anon_id.
    visit('shop', 'b1', T - 5 * day, { query: utm('facebook', 'social', 'summer'), user_id: 'u1' }),
    visit('shop', 'b2', T - 5 * day, { query: utm('newsletter', 'email', 'summer'), user_id: 'u1' }),
    b,
    // C: a single touch.
    visit('shop', 'c1', T - 2 * day, { query: utm('bing', 'cpc', 'brand') }),
    c,
    // D: direct visits only.
    visit('shop', 'd1', T - 4 * day),
    visit('shop', 'd1', T - 2 * day),
    d,
    // E: a purchase with no visit before it (its own visit starts with it and is not a touchpoint).
    e,
    // F: three sources, linear thirds.
    visit('shop', 'f1', T - 6 * day, { query: utm('s1', 'm', 'c') }),
    visit('shop', 'f1', T - 5 * day, { query: utm('s2', 'm', 'c') }),
    visit('shop', 'f1', T - 4 * day, { query: utm('s3', 'm', 'c') }),
    f,
  ]);
  // Another workspace's purchase in the same range never shows up in acme's answers.
  await send(server, 'other-shop', [visit('other-shop', 'a1', T - day, { query: utm('google', 'cpc', 'spring') }), purchase('other-shop', 'a1', T, { amount: '999.00', currency: 'USD' })]);
});
afterAll(() => server.close());

type Touch = { ts: string; source: string; medium: string | null; campaign: string | null; credit: number };
type Result = { conversion_id: string; site_id: string; ts: string; person: string; revenue: unknown; touchpoints: Touch[] };

async function results(model: string): Promise<Map<string, Result>> {
  const response = await server.request('GET', `/v1/workspaces/acme/attribution/results?model=${model}&from=2026-06-01&to=2026-06-30`);
  expect(response.status, response.text).toBe(200);
  expect(response.body.model).toBe(model);
  return new Map((response.body.results as Result[]).map((item) => [item.conversion_id, item]));
}

const credits = (result: Result | undefined) => result!.touchpoints.map((touch) => [touch.source, touch.credit]);
const millionths = (result: Result) => result.touchpoints.reduce((sum, touch) => sum + Math.round(touch.credit * 1e6), 0);

// 2^(−3/7) : 2^(−2/7) : 2^(−1/7) = 300923.55 : 332246.54 : 366829.92 millionths; floors leave 2 units, which go to the
// largest remainders (.92, then .55).
const F_TIME_DECAY: [string, number][] = [['s1', 0.300924], ['s2', 0.332246], ['s3', 0.36683]];

const expected: Record<string, Record<string, [string, number][]>> = {
  first_touch: {
    a: [['google', 1], ['direct', 0], ['news.example', 0], ['direct', 0]],
    b: [['facebook', 1], ['newsletter', 0]],
    d: [['direct', 1], ['direct', 0]],
    f: [['s1', 1], ['s2', 0], ['s3', 0]],
  },
  last_touch: {
    a: [['google', 0], ['direct', 0], ['news.example', 0], ['direct', 1]],
    b: [['facebook', 0], ['newsletter', 1]],
    d: [['direct', 0], ['direct', 1]],
    f: [['s1', 0], ['s2', 0], ['s3', 1]],
  },
  last_non_direct: {
    a: [['google', 0], ['direct', 0], ['news.example', 1], ['direct', 0]],
    b: [['facebook', 0], ['newsletter', 1]],
    // Direct only: the last direct visit takes the credit.
    d: [['direct', 0], ['direct', 1]],
    f: [['s1', 0], ['s2', 0], ['s3', 1]],
  },
  linear: {
    a: [['google', 0.25], ['direct', 0.25], ['news.example', 0.25], ['direct', 0.25]],
    b: [['facebook', 0.5], ['newsletter', 0.5]],
    d: [['direct', 0.5], ['direct', 0.5]],
    // 1,000,000 millionths in three: the first remainder wins the tie.
    f: [['s1', 0.333334], ['s2', 0.333333], ['s3', 0.333333]],
  },
  position_based: {
    a: [['google', 0.4], ['direct', 0.1], ['news.example', 0.1], ['direct', 0.4]],
    b: [['facebook', 0.5], ['newsletter', 0.5]],
    d: [['direct', 0.5], ['direct', 0.5]],
    f: [['s1', 0.4], ['s2', 0.2], ['s3', 0.4]],
  },
  time_decay: {
    // 2^(−20/7), 2^(−10/7), 2^(−3/7), 2^(−10 min/7 d) normalised: 61288.74, 164977.07, 329954.13, 443780.06.
    a: [['google', 0.061289], ['direct', 0.164977], ['news.example', 0.329954], ['direct', 0.44378]],
    // A tie in time: equal weights.
    b: [['facebook', 0.5], ['newsletter', 0.5]],
    // 2^(−3/7) : 2^(−1/7) = 450650.67 : 549349.33.
    d: [['direct', 0.450651], ['direct', 0.549349]],
    f: F_TIME_DECAY,
  },
};

describe.each(Object.keys(expected))('model %s', (model) => {
  it('credits each journey as computed by hand, summing to exactly 1', async () => {
    const answer = await results(model);
    expect(answer.size).toBe(6);
    for (const [name, credited] of Object.entries(expected[model]!)) {
      expect(credits(answer.get(ids[name]!)), `${model} ${name}`).toEqual(credited);
    }
    // A single touch takes everything under every model.
    expect(credits(answer.get(ids.c!))).toEqual([['bing', 1]]);
    // No visit before the purchase: no touchpoints.
    expect(answer.get(ids.e!)!.touchpoints).toEqual([]);
    for (const result of answer.values()) if (result.touchpoints.length > 0) expect(millionths(result), `${model} ${result.conversion_id}`).toBe(1_000_000);
  });
});

describe('what a result says', () => {
  it('names the conversion, its site, time, person, revenue and each touchpoint', async () => {
    const answer = await results('linear');
    expect(answer.get(ids.a!)).toEqual({
      conversion_id: ids.a,
      site_id: 'shop',
      ts: iso(T),
      person: 'anon:a1',
      revenue: { amount: '100.00', currency: 'USD' },
      touchpoints: [
        { ts: iso(T - 20 * day), source: 'google', medium: 'cpc', campaign: 'spring', credit: 0.25 },
        { ts: iso(T - 10 * day), source: 'direct', medium: null, campaign: null, credit: 0.25 },
        { ts: iso(T - 3 * day), source: 'news.example', medium: null, campaign: null, credit: 0.25 },
        { ts: iso(T - 10 * minute), source: 'direct', medium: null, campaign: null, credit: 0.25 },
      ],
    });
    // Both devices of u1 are one person.
    expect(answer.get(ids.b!)!.person).toBe('user:u1');
    expect(answer.get(ids.c!)!.revenue).toBeNull();
    expect(answer.get(ids.d!)!.revenue).toEqual({ amount: '1.250', currency: 'KWD' });
  });

  it('totals split revenue by credit exactly, per currency, with unattributed conversions on a row of nulls', async () => {
    const response = await server.request('GET', '/v1/workspaces/acme/attribution/results?model=linear&from=2026-06-01&to=2026-06-30');
    const totals = response.body.totals as { source: string | null; medium: string | null; campaign: string | null; conversions: number; revenue: unknown[] }[];
    const row = (source: string | null, campaign: string | null = null) => totals.find((item) => item.source === source && item.campaign === campaign);
    // 3001 JPY in halves: 1501 to the first touchpoint (the tie goes to the earlier one), 1500 to the second.
    expect(row('facebook', 'summer')).toEqual({ source: 'facebook', medium: 'social', campaign: 'summer', conversions: 0.5, revenue: [{ currency: 'JPY', amount: '1501' }] });
    expect(row('newsletter', 'summer')).toEqual({ source: 'newsletter', medium: 'email', campaign: 'summer', conversions: 0.5, revenue: [{ currency: 'JPY', amount: '1500' }] });
    // direct: a's two quarters (2 × 25.00 USD) and d's two halves (1.250 KWD): currencies never summed together.
    expect(row('direct')).toEqual({ source: 'direct', medium: null, campaign: null, conversions: 1.5, revenue: [{ currency: 'KWD', amount: '1.250' }, { currency: 'USD', amount: '50.00' }] });
    expect(row(null)).toEqual({ source: null, medium: null, campaign: null, conversions: 1, revenue: [{ currency: 'EUR', amount: '50.00' }] });
    // f: 0.10 USD in thirds is 4 + 3 + 3 cents.
    expect(row('s1', 'c')!.revenue).toEqual([{ currency: 'USD', amount: '0.04' }]);
    expect(row('s2', 'c')!.revenue).toEqual([{ currency: 'USD', amount: '0.03' }]);
    const conversions = totals.reduce((sum, item) => sum + Math.round(item.conversions * 1e6), 0);
    expect(conversions).toBe(6_000_000);
  });

  it('conversion_id narrows the results to one purchase; totals follow', async () => {
    const response = await server.request('GET', `/v1/workspaces/acme/attribution/results?model=last_touch&from=2026-06-01&to=2026-06-30&conversion_id=${ids.c}`);
    expect(response.body.results.map((item: Result) => item.conversion_id)).toEqual([ids.c]);
    expect(response.body.totals).toEqual([{ source: 'bing', medium: 'cpc', campaign: 'brand', conversions: 1, revenue: [] }]);
    const unknown = await server.request('GET', `/v1/workspaces/acme/attribution/results?model=last_touch&from=2026-06-01&to=2026-06-30&conversion_id=${crypto.randomUUID()}`);
    expect(unknown.body).toMatchObject({ results: [], totals: [], next_cursor: null });
  });

  it('pages with an opaque cursor in conversion time order, nothing lost or repeated', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response: { status: number; body: { results: Result[]; next_cursor: string | null } } = await server.request(
        'GET',
        `/v1/workspaces/acme/attribution/results?model=linear&from=2026-06-01&to=2026-06-30&limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(response.status).toBe(200);
      seen.push(...response.body.results.map((item) => item.ts));
      cursor = response.body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(6);
    expect([...seen].sort()).toEqual(seen);
    // A cursor of another query is refused.
    const first = await server.request('GET', '/v1/workspaces/acme/attribution/results?model=linear&from=2026-06-01&to=2026-06-30&limit=1');
    const reused = await server.request('GET', `/v1/workspaces/acme/attribution/results?model=first_touch&from=2026-06-01&to=2026-06-30&cursor=${first.body.next_cursor}`);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_param');
  });
});
