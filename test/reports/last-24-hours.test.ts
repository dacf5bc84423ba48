// summary-v2's since= (docs/reports.md, "Last 24 hours"; issue 29): a rolling window from a whole UTC hour of the
// range's first day to its end, counted by hour: the dashboard's "Last 24 hours" asks yesterday to today since the
// hour 23 hours before the current one, and gets 24 hourly points; the comparison is the window as long just before
// it, cut where the current one has run. Checked against a naive count from the raw events table, and at its edges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { chrome, poll, send } from '../events/_helpers.ts';
import { naiveVisits } from './naive-reports.ts';

// Now is 14:30 on 2026-03-05: the last 24 hours are 15:00 on the 4th to now, the current hour included.
const clock = manualClock('2026-03-05T14:30:00.000Z');
const siteId = 'window';
const hourMs = 3_600_000;
let server: TestServer;

function dataSet(): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  // Visits every 50 minutes from the 3rd to now, some crossing the window's start; people come back.
  for (let index = 0, at = Date.parse('2026-03-03T00:10:00Z'); at < Date.parse('2026-03-05T14:25:00Z'); index++, at += 50 * 60_000) {
    for (let view = 0; view < 1 + (index % 3); view++) {
      events.push({
        id: crypto.randomUUID(),
        site_id: siteId,
        anon_id: `p${index % 17}`,
        ts: new Date(at + view * 20 * 60_000).toISOString(),
        type: 'pageview',
        url: `https://window.example/${view}`,
        context: { user_agent: chrome },
      });
    }
  }
  return events.filter((event) => Date.parse(event.ts as string) < clock.now());
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'window', { sites: [siteId] });
  await send(server, siteId, dataSet());
  await projected('2026-03-03', '2026-03-05');
}, 180_000);
afterAll(() => server?.close());

/**
 * Every stored event counted before anything is compared: a report's wait for the projector is bounded, and on a
 * loaded machine it can run out, answering as of an earlier position than the naive side reads.
 */
async function projected(from: string, to: string): Promise<void> {
  await poll(async () => {
    const { freshness } = (await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${from}&to=${to}`)).body.meta;
    return freshness.watermark !== null && freshness.watermark === freshness.projected_through ? true : undefined;
  }, 120_000);
}

/** Visitors, visits and pageviews of [startMs, endMs): events inside it, visits starting inside it. */
function naiveWindow(startMs: number, endMs: number) {
  const visits = naiveVisits(server.db, { siteIds: [siteId], from: '2026-03-01', to: '2026-03-06' });
  const figures = (from: number, to: number) => {
    const people = new Set<string>();
    let pageviews = 0;
    for (const visit of visits) for (const row of visit.events) if (row.ts >= from && row.ts < to) (people.add(row.anon_id), (pageviews += row.type === 'pageview' ? 1 : 0));
    return { visitors: people.size, visits: visits.filter((visit) => visit.first.ts >= from && visit.first.ts < to).length, pageviews };
  };
  const hours = Math.ceil((endMs - startMs) / hourMs);
  return {
    total: figures(startMs, endMs),
    series: Array.from({ length: hours }, (_, hour) => ({ date: new Date(startMs + hour * hourMs).toISOString().replace('.000Z', 'Z'), ...figures(startMs + hour * hourMs, Math.min(endMs, startMs + (hour + 1) * hourMs)) })),
  };
}

async function summary(query: string) {
  return server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?${query}`);
}

describe('summary-v2 since=: a rolling window by hour', () => {
  it('the last 24 hours: 24 hourly points, totals and series as a naive count of the window', async () => {
    const response = await summary('from=2026-03-04&to=2026-03-05&since=2026-03-04T15:00:00Z');
    expect(response.status, response.text).toBe(200);
    const naive = naiveWindow(Date.parse('2026-03-04T15:00:00Z'), Date.parse('2026-03-06T00:00:00Z'));
    expect(response.body.meta.interval).toBe('hour');
    expect(response.body.data.series).toHaveLength(33);
    // Up to now: 24 points (the later ones of today are empty).
    const upToNow = response.body.data.series.filter((point: { date: string }) => Date.parse(point.date) <= clock.now());
    expect(upToNow).toHaveLength(24);
    expect(response.body.data.series).toEqual(naive.series);
    expect(response.body.data).toMatchObject(naive.total);
    expect(naive.total.visits).toBeGreaterThan(0);
  });

  it('compares with the 24 hours before, as far as this window has run', async () => {
    const response = await summary('from=2026-03-04&to=2026-03-05&since=2026-03-04T15:00:00Z&compare=previous');
    expect(response.status, response.text).toBe(200);
    // The window runs from 15:00 on the 4th to midnight (33 hours), 23.5 of them gone: the one before starts 33 hours earlier.
    const start = Date.parse('2026-03-04T15:00:00Z') - 33 * hourMs;
    const until = start + (clock.now() - Date.parse('2026-03-04T15:00:00Z'));
    expect(response.body.meta.comparison).toEqual({ from: '2026-03-03', to: '2026-03-04', partial: true, until: new Date(until).toISOString(), since: new Date(start).toISOString() });
    const naive = naiveWindow(start, until);
    expect(response.body.data.comparison).toMatchObject(naive.total);
    expect(response.body.data.comparison.series.slice(0, 24)).toEqual(naive.series.slice(0, 24));
  });

  it.each([
    ['the first hour of the first day', 'from=2026-03-04&to=2026-03-05&since=2026-03-04T00:00:00Z', 200],
    ['the last hour of the first day', 'from=2026-03-04&to=2026-03-05&since=2026-03-04T23:00:00Z', 200],
    ['an hour of the second day', 'from=2026-03-04&to=2026-03-05&since=2026-03-05T00:00:00Z', 400],
    ['an hour before the range', 'from=2026-03-04&to=2026-03-05&since=2026-03-03T23:00:00Z', 400],
    ['not a whole hour', 'from=2026-03-04&to=2026-03-05&since=2026-03-04T15:30:00Z', 400],
    ['not a time', 'from=2026-03-04&to=2026-03-05&since=yesterday', 400],
    ['an interval other than hour', 'from=2026-03-04&to=2026-03-05&since=2026-03-04T15:00:00Z&interval=day', 400],
  ])('since at %s: %s → %i', async (_label, query, status) => {
    const response = await summary(query);
    expect(response.status, response.text).toBe(status);
    if (status === 400) expect(JSON.stringify(response.body)).toMatch(/invalid_param/);
  });
});
