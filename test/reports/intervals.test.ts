// summary-v2's interval and comparison, and realtime-v2 (CONTRACT section 10, docs/reports.md), over HTTP with a
// manual clock at 2026-11-27T13:30:00Z: hourly points at their hour's edges, ISO weeks and months cut to the range,
// the points limit at its edge, a running period compared with the same part of the previous one, and the last
// 30 minutes counted by event time at the 5th and 30th minute's edges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';

const now = '2026-11-27T13:30:00.000Z';
const nowMs = Date.parse(now);
const clock = manualClock(now);
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const siteId = 'iv-site';
const otherSite = 'iv-other';

let server: TestServer;

function event(anon: string, at: string | number, type = 'pageview', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: crypto.randomUUID(),
    site_id: siteId,
    anon_id: anon,
    ts: typeof at === 'number' ? new Date(at).toISOString() : at,
    type,
    url: 'https://iv.example/',
    context: { user_agent: chrome },
    ...extra,
  };
}

const minute = 60_000;
const ago = (ms: number) => nowMs - ms;

beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'iv', { sites: [siteId, otherSite] });
  await send(server, siteId, [
    // Yesterday, 2026-11-26: the comparison's day. Its count stops at 13:30:00.000 when today is compared.
    event('y1', '2026-11-26T09:00:00.000Z'),
    event('y2', '2026-11-26T13:29:59.999Z'),
    event('y3', '2026-11-26T13:30:00.000Z'),
    event('y4', '2026-11-26T20:00:00.000Z'),
    // 2026-11-16 (a Monday) and 2026-10-20: points of the weekly and monthly series.
    event('w1', '2026-11-16T08:00:00.000Z'),
    event('m1', '2026-10-20T08:00:00.000Z'),
    // Today: hour edges (12:59:59.999 is hour 12, 13:00:00.000 hour 13), then the realtime window's edges.
    event('t1', '2026-11-27T00:00:00.000Z'),
    event('t2', '2026-11-27T12:59:59.999Z'),
    event('t3', '2026-11-27T13:00:00.000Z'),
    event('r0', ago(30 * minute)), // exactly 30 minutes ago: outside the last 30 minutes
    event('r1', ago(30 * minute - 1)), // minute 0
    event('r2', ago(5 * minute)), // in the last 30 minutes, not the last 5 (minute 25)
    event('r3', ago(5 * minute - 1)), // in the last 5 minutes (minute 25)
    event('r3', ago(minute), 'signup'), // a visitor, not a pageview
    event('r4', ago(minute)), // minute 28 (a boundary counts in the minute it ends)
    event('r4', nowMs), // minute 29
    event('in', ago(2 * minute), 'pageview', { internal: true }), // internal traffic never counts
  ]);
  await server.projected();
});
afterAll(() => server.close());

async function get(path: string): Promise<any> {
  const response = await server.request('GET', path);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const pointsWithPageviews = (series: { date: string; pageviews: number }[]) => series.filter((point) => point.pageviews > 0).map((point) => [point.date, point.pageviews]);

describe('summary-v2 interval', () => {
  it.each([
    ['one day: hours by default', 'from=2026-11-27&to=2026-11-27', 'hour', 24, '2026-11-27T00:00:00Z', [['2026-11-27T00:00:00Z', 1], ['2026-11-27T12:00:00Z', 1], ['2026-11-27T13:00:00Z', 7]]],
    ['two days: days by default', 'from=2026-11-26&to=2026-11-27', 'day', 2, '2026-11-26', [['2026-11-26', 4], ['2026-11-27', 9]]],
    ['two days by hour', 'from=2026-11-26&to=2026-11-27&interval=hour', 'hour', 48, '2026-11-26T00:00:00Z', [['2026-11-26T09:00:00Z', 1], ['2026-11-26T13:00:00Z', 2], ['2026-11-26T20:00:00Z', 1], ['2026-11-27T00:00:00Z', 1], ['2026-11-27T12:00:00Z', 1], ['2026-11-27T13:00:00Z', 7]]],
    // Friday 2026-11-13 to Friday 2026-11-27: the first week starts on the range's first day, the others on Mondays.
    ['ISO weeks cut to the range', 'from=2026-11-13&to=2026-11-27&interval=week', 'week', 3, '2026-11-13', [['2026-11-16', 1], ['2026-11-23', 13]]],
    ['months cut to the range', 'from=2026-10-15&to=2026-11-27&interval=month', 'month', 2, '2026-10-15', [['2026-10-15', 1], ['2026-11-01', 14]]],
  ])('%s', async (_name, query, interval, length, firstDate, withPageviews) => {
    const body = await get(`/v1/sites/${siteId}/reports/summary-v2?${query}`);
    expect(body.meta.interval).toBe(interval);
    expect(body.data.series).toHaveLength(length);
    expect(body.data.series[0].date).toBe(firstDate);
    expect(pointsWithPageviews(body.data.series)).toEqual(withPageviews);
    // The series adds up to the totals (each visitor here has one visit in one interval).
    expect(body.data.series.reduce((sum: number, point: { pageviews: number }) => sum + point.pageviews, 0)).toBe(body.data.pageviews);
  });

  it('counts an hour\'s visitors and visits exactly (a visit in the hour it starts)', async () => {
    const body = await get(`/v1/sites/${siteId}/reports/summary-v2?from=2026-11-27&to=2026-11-27`);
    // 13:00-13:59: t3, r0 (13:00:00.000), r1, r2, r3 and r4 (two pageviews a minute apart: one visit); r3's signup
    // is an event, not a pageview.
    expect(body.data.series[13]).toEqual({ date: '2026-11-27T13:00:00Z', visitors: 6, visits: 6, pageviews: 7 });
  });

  it.each([
    ['hour over 31 days: 744 points, the most', 'from=2026-10-28&to=2026-11-27&interval=hour', 200],
    ['hour over 32 days: 768 points, refused', 'from=2026-10-27&to=2026-11-27&interval=hour', 400],
    ['day over 367 days', 'from=2025-11-26&to=2026-11-27&interval=day', 200],
    ['an unknown interval', 'from=2026-11-27&to=2026-11-27&interval=minute', 400],
    ['interval given twice', 'from=2026-11-27&to=2026-11-27&interval=hour&interval=day', 400],
    ['an unknown comparison', 'from=2026-11-27&to=2026-11-27&compare=last', 400],
  ])('%s', async (_name, query, status) => {
    const response = await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?${query}`);
    expect(response.status, response.text).toBe(status);
    if (status === 400) {
      expect(response.body.error.code).toBe('invalid_param');
      expect(response.body.error.details[0].path).toMatch(/^\/(interval|compare)$/);
    }
  });
});

describe('summary-v2 compare', () => {
  it.each([
    // Today is running (13:30): yesterday counts up to 13:30, so y2 (13:29:59.999) counts and y3 (13:30:00.000) does not.
    ['today, with the same part of yesterday', 'from=2026-11-27&to=2026-11-27&compare=previous', { from: '2026-11-26', to: '2026-11-26', partial: true, until: '2026-11-26T13:30:00.000Z' }, 2],
    // Yesterday is over: the whole day before it (nothing there).
    ['yesterday, with the whole day before', 'from=2026-11-26&to=2026-11-26&compare=previous', { from: '2026-11-25', to: '2026-11-25', partial: false, until: null }, 0],
    // Two running days: the two before, up to as far into them (1 day 13.5 hours).
    ['two running days', 'from=2026-11-26&to=2026-11-27&compare=previous', { from: '2026-11-24', to: '2026-11-25', partial: true, until: '2026-11-25T13:30:00.000Z' }, 0],
    ['today a year earlier (52 weeks)', 'from=2026-11-27&to=2026-11-27&compare=year', { from: '2025-11-28', to: '2025-11-28', partial: true, until: '2025-11-28T13:30:00.000Z' }, 0],
  ])('%s', async (_name, query, comparison, pageviews) => {
    const body = await get(`/v1/sites/${siteId}/reports/summary-v2?${query}`);
    expect(body.meta.comparison).toEqual(comparison);
    expect(body.data.comparison.pageviews).toBe(pageviews);
    expect(body.data.comparison.series).toHaveLength(body.data.series.length);
  });

  it('counts the compared part exactly: visitors, visits and hours up to the cut', async () => {
    const body = await get(`/v1/sites/${siteId}/reports/summary-v2?from=2026-11-27&to=2026-11-27&compare=previous`);
    expect(body.data.comparison).toMatchObject({ visitors: 2, visits: 2, pageviews: 2, events: 2, bounce_rate: 1 });
    expect(pointsWithPageviews(body.data.comparison.series)).toEqual([['2026-11-26T09:00:00Z', 1], ['2026-11-26T13:00:00Z', 1]]);
  });

  it('has no comparison unless asked', async () => {
    const body = await get(`/v1/sites/${siteId}/reports/summary-v2?from=2026-11-27&to=2026-11-27`);
    expect(body.meta.comparison).toBeUndefined();
    expect(body.data.comparison).toBeUndefined();
  });
});

describe('realtime-v2', () => {
  it('counts the last 5 and 30 minutes by event time, with 30 per-minute pageview counts, oldest first', async () => {
    const body = await get(`/v1/sites/${siteId}/reports/realtime-v2`);
    const series = Array.from({ length: 30 }, () => 0);
    series[0] = 1; // r1, 30 minutes ago less 1 ms
    series[24] = 1; // r2, exactly 5 minutes ago: the minute that ends then
    series[25] = 1; // r3, 5 minutes ago less 1 ms
    series[28] = 1; // r4, exactly a minute ago
    series[29] = 1; // r4, now
    // In the last 5 minutes: r3 and r4; in the last 30: r1, r2, r3, r4 (r0, exactly 30 minutes ago, is out).
    expect(body).toEqual({ visitors_last_5m: 2, visitors_last_30m: 4, pageviews_last_30m: 5, series });
  });

  it('is a site\'s own: another site of the workspace has none, an unknown site is a 404', async () => {
    expect(await get(`/v1/sites/${otherSite}/reports/realtime-v2`)).toEqual({ visitors_last_5m: 0, visitors_last_30m: 0, pageviews_last_30m: 0, series: Array.from({ length: 30 }, () => 0) });
    const missing = await server.request('GET', '/v1/sites/no-such-site/reports/realtime-v2');
    expect(missing.status).toBe(404);
  });
});
