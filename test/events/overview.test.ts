// GET /sites/:siteId/events/overview-v2 over real HTTP: exact totals by type for the range and filters, the order
// of types, the cap of 50 types, and the common parameters at their limits.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventOverviewAnswer } from '../../src/events/answers.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { googlebot, iphone, send, wireEvent } from './_helpers.ts';

const clock = manualClock('2026-03-20T12:00:00.000Z');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'acme', { sites: ['shop', 'wide', 'other'] });
});
afterAll(() => server.close());

async function overview(site: string, query: string) {
  const response = await server.request('GET', `/sites/${site}/events/overview-v2?${query}`);
  if (response.status === 200) expect(v.safeParse(EventOverviewAnswer, response.body).issues).toBeUndefined();
  return response;
}

describe('overview-v2', () => {
  beforeAll(async () => {
    const day = (n: number) => `2026-03-${String(n).padStart(2, '0')}T12:00:00.000Z`;
    const events = [
      ...Array.from({ length: 5 }, () => wireEvent('shop', { ts: day(10) })),
      ...Array.from({ length: 3 }, () => wireEvent('shop', { ts: day(11), type: 'signup', url: null })),
      ...Array.from({ length: 3 }, () => wireEvent('shop', { ts: day(11), type: 'click', url: 'https://s.example/buy', context: { user_agent: iphone } })),
      wireEvent('shop', { ts: day(12), type: 'purchase', revenue: { amount: '9.99', currency: 'EUR' } }),
      // Outside the range, bots, internal traffic.
      wireEvent('shop', { ts: '2026-03-09T23:59:59.999Z' }),
      wireEvent('shop', { ts: '2026-03-13T00:00:00.000Z', type: 'signup' }),
      ...Array.from({ length: 4 }, () => wireEvent('shop', { ts: day(10), context: { user_agent: googlebot } })),
      ...Array.from({ length: 2 }, () => wireEvent('shop', { ts: day(10), type: 'signup', internal: true })),
    ];
    await send(server, 'shop', events);
  });

  it('counts every event of the range exactly; types by count descending, then type ascending', async () => {
    const response = await overview('shop', 'from=2026-03-10&to=2026-03-12');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      total: 12,
      types: [
        { type: 'pageview', count: 5 },
        { type: 'click', count: 3 },
        { type: 'signup', count: 3 },
        { type: 'purchase', count: 1 },
      ],
    });
    expect(response.body.meta).toMatchObject({ range: { from: '2026-03-10', to: '2026-03-12' }, truncated: false, limit: 50, computed_from: 'event_log', cursor: { next: null } });
    expect(Object.keys(response.body.meta.measures)).toEqual(['total', 'count']);
  });

  it('adds internal traffic only with internal=include, never bots; applies filters', async () => {
    expect((await overview('shop', 'from=2026-03-10&to=2026-03-12&internal=include')).body.data.total).toBe(14);
    expect((await overview('shop', 'from=2026-03-10&to=2026-03-12&device=mobile')).body.data).toEqual({ total: 3, types: [{ type: 'click', count: 3 }] });
    expect((await overview('shop', 'from=2026-03-10&to=2026-03-12&path=/buy,/page')).body.data.total).toBe(9);
    expect((await overview('shop', 'from=2026-03-10&to=2026-03-12&path=/buy')).body.data.total).toBe(3);
    expect((await overview('shop', 'from=2026-03-11&to=2026-03-11')).body.data.total).toBe(6);
    expect((await overview('shop', 'from=2026-01-01&to=2026-01-02')).body.data).toEqual({ total: 0, types: [] });
  });

  it('lists at most 50 types, says so in meta, and still counts them all in total', async () => {
    const types = Array.from({ length: 51 }, (_, index) => `t${String(index).padStart(2, '0')}`);
    // t00 once, t01 twice…: t00 is the one left out.
    await send(server, 'wide', types.flatMap((type, index) => Array.from({ length: index + 1 }, () => wireEvent('wide', { type, ts: '2026-03-15T10:00:00.000Z', url: null }))));
    const response = await overview('wide', 'from=2026-03-15&to=2026-03-15');
    expect(response.body.data.total).toBe((51 * 52) / 2);
    expect(response.body.data.types).toHaveLength(50);
    expect(response.body.data.types[0]).toEqual({ type: 't50', count: 51 });
    expect(response.body.data.types.map((row: { type: string }) => row.type)).not.toContain('t00');
    expect(response.body.meta.truncated).toBe(true);
    expect(response.body.meta.warnings).toEqual([expect.stringContaining('50 most frequent of 51')]);
    await send(server, 'other', types.slice(0, 50).map((type) => wireEvent('other', { type, ts: '2026-03-15T10:00:00.000Z', url: null })));
    const exactly = await overview('other', 'from=2026-03-15&to=2026-03-15');
    expect(exactly.body.data.types).toHaveLength(50);
    expect(exactly.body.meta.truncated).toBe(false);
  });

  it.each([
    ['367 days', 'from=2025-03-19&to=2026-03-20', 200, undefined],
    ['368 days', 'from=2025-03-18&to=2026-03-20', 400, 'range_too_large'],
    ['no dates', '', 400, 'invalid_date_param'],
    ['20 filter values', `from=2026-03-01&to=2026-03-20&browser=${Array.from({ length: 20 }, (_, index) => `B${index}`).join(',')}`, 200, undefined],
    ['21 filter values', `from=2026-03-01&to=2026-03-20&browser=${Array.from({ length: 21 }, (_, index) => `B${index}`).join(',')}`, 400, 'too_many_values'],
    ['bots=include', 'from=2026-03-01&to=2026-03-20&bots=include', 400, 'unsupported_bots'],
    ['timezone=Asia/Tokyo', 'from=2026-03-01&to=2026-03-20&timezone=Asia/Tokyo', 400, 'unsupported_timezone'],
  ])('%s → %s', async (_name, query, status, code) => {
    const response = await overview('shop', query);
    expect(response.status, response.text).toBe(status);
    if (code) expect(response.body.error.code).toBe(code);
  });
});
