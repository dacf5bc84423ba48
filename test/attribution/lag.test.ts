// Attribution results, ROI and ROI compare over HTTP with a projector that runs only when the test says so: past
// the bounded wait they answer with what is projected and say so, as the V2 reports do (completeness
// `projection_lag`, freshness.watermark and projected_through); once projected they count the events and say
// whether the range is complete; later pages of a lagging first page stay as of its position and keep saying so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';
import { purchase, utm, visit } from './_fixtures.ts';

const clock = manualClock('2026-07-01T12:00:00.000Z');
const june = (date: number, hour = 12) => Date.UTC(2026, 5, date, hour);
const june2026 = 'from=2026-06-01&to=2026-06-30';
const lag = { complete: false, reason: 'projection_lag' };
let server: TestServer;

beforeAll(async () => {
  // Manual: nothing is projected until the test calls projectNow; reads give up waiting after 50 ms.
  server = await startTestServer({ clock, projector: 'manual', projectionWaitMs: 50 });
  await seedWorkspace(server, 'lagging', { sites: ['shop', 'blog'] });
  const spend = await server.request('POST', '/v1/workspaces/lagging/spend', {
    body: { date: '2026-06-10', source: 'google', medium: 'cpc', campaign: 'spring', amount: '10.00', currency: 'USD' },
  });
  expect(spend.status, spend.text).toBe(201);
});
afterAll(() => server.close());

const results = (query: string) => server.request('GET', `/v1/workspaces/lagging/attribution/results?model=last_touch&${query}`);
const roi = (query: string) => server.request('GET', `/v1/workspaces/lagging/roi?${query}`);
const compare = () => server.request('GET', `/v1/workspaces/lagging/roi/compare?${june2026}&compare_from=2026-05-01&compare_to=2026-05-31`);

describe('attribution and ROI with a projector that lags', () => {
  it('answer with what is projected and say so, then count the events once projected', async () => {
    const sentAt = clock.iso();
    await send(server, 'shop', [
      visit('shop', 'r1', june(18), { query: utm('google', 'cpc', 'spring') }),
      purchase('shop', 'r1', june(20), { amount: '100.00', currency: 'USD' }),
    ]);

    const lagging = await results(june2026);
    expect(lagging.status, lagging.text).toBe(200);
    expect(lagging.body).toMatchObject({ results: [], totals: [], completeness: lag, freshness: { watermark: sentAt, projected_through: null } });
    const lateRoi = await roi(june2026);
    expect(lateRoi.status, lateRoi.text).toBe(200);
    expect(lateRoi.body.completeness).toEqual(lag);
    expect(lateRoi.body.freshness).toEqual({ watermark: sentAt, projected_through: null });
    // Spend is not derived: it is there; the revenue the projector has not reached is not.
    expect(lateRoi.body.currencies).toEqual([{ currency: 'USD', spend: '10.00', revenue: '0.00', conversions: 0, roas: 0, roi: -1 }]);
    const lateCompare = await compare();
    expect(lateCompare.status, lateCompare.text).toBe(200);
    expect(lateCompare.body.completeness).toEqual(lag);
    expect(lateCompare.body.current.completeness).toEqual(lag);
    expect(lateCompare.body.previous.completeness).toEqual(lag);
    expect(lateCompare.body.freshness).toEqual({ watermark: sentAt, projected_through: null });

    expect(server.app.projection.projectNow()).toMatchObject({ events: 2 });
    const counted = await results(june2026);
    expect(counted.body.completeness).toEqual({ complete: true });
    expect(counted.body.freshness).toEqual({ watermark: sentAt, projected_through: sentAt });
    expect(counted.body.results).toHaveLength(1);
    expect(counted.body.totals).toEqual([{ source: 'google', medium: 'cpc', campaign: 'spring', conversions: 1, revenue: [{ currency: 'USD', amount: '100.00' }] }]);
    const countedRoi = await roi(june2026);
    expect(countedRoi.body.completeness).toEqual({ complete: true });
    expect(countedRoi.body.currencies).toEqual([{ currency: 'USD', spend: '10.00', revenue: '100.00', conversions: 1, roas: 10, roi: 9 }]);
    const countedCompare = await compare();
    expect(countedCompare.body.completeness).toEqual({ complete: true });
    expect(countedCompare.body.freshness).toEqual({ watermark: sentAt, projected_through: sentAt });
  });

  it('say a range that includes the current UTC day is not complete yet, lag or not', async () => {
    const today = 'from=2026-06-01&to=2026-07-01';
    expect((await results(today)).body.completeness).toEqual({ complete: false, reason: expect.stringContaining('current UTC day') });
    expect((await roi(today)).body.completeness).toEqual({ complete: false, reason: expect.stringContaining('current UTC day') });
    // compare: complete only when both ranges are (here the earlier one includes today).
    const both = await server.request('GET', `/v1/workspaces/lagging/roi/compare?${june2026}&compare_from=2026-07-01&compare_to=2026-07-01`);
    expect(both.status, both.text).toBe(200);
    expect(both.body.current.completeness).toEqual({ complete: true });
    expect(both.body.completeness).toEqual({ complete: false, reason: expect.stringContaining('current UTC day') });
  });

  it('keep later pages of a lagging first page as of its position, saying so after the projector caught up', async () => {
    clock.advance(60_000);
    await send(server, 'blog', [
      visit('blog', 'r2', june(21), { query: utm('bing', 'cpc', 'brand') }),
      purchase('blog', 'r2', june(22), { amount: '5.00', currency: 'EUR' }),
    ]);
    server.app.projection.projectNow();
    const projectedAt = clock.iso();
    clock.advance(60_000);
    const unprojectedAt = clock.iso();
    await send(server, 'shop', [purchase('shop', 'r1', june(23), { amount: '1.00', currency: 'USD' })]);

    const first = await results(`${june2026}&limit=1`);
    expect(first.body.completeness).toEqual(lag);
    expect(first.body.freshness).toEqual({ watermark: unprojectedAt, projected_through: projectedAt });
    expect(first.body.next_cursor).toEqual(expect.any(String));

    server.app.projection.projectNow();
    const second = await results(`${june2026}&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.status, second.text).toBe(200);
    // As of the first page's position: the second of the two conversions it saw, not the one projected since.
    expect(second.body.results.map((result: { site_id: string }) => result.site_id)).toEqual(['blog']);
    expect(second.body.next_cursor).toBeNull();
    expect(second.body.completeness).toEqual(lag);
    expect(second.body.freshness).toEqual(first.body.freshness);

    const fresh = await results(june2026);
    expect(fresh.body.completeness).toEqual({ complete: true });
    expect(fresh.body.freshness).toEqual({ watermark: unprojectedAt, projected_through: unprojectedAt });
    expect(fresh.body.results).toHaveLength(3);
  });
});
