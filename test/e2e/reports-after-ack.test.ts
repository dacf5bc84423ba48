// Reports read right after a 202, against the shipped server: an acknowledged event is counted by the very next
// aggregate read (CONTRACT section 2), in the V2 reports (exactly { meta, data }) and in the legacy ones; and by a
// funnel, computed on the shipped server's analysis thread, after which SIGTERM still drains and exits 0.
import { describe, expect, it } from 'vitest';
import { browserEvent, cleanExit, createSite, ingest, type ShippedServer, timesOn, useShippedServers, utcDate } from './_server.ts';

const siteId = 'reports-e2e';
/** Yesterday noon and after: a whole visit inside one UTC day, whenever the suite runs. */
const day = utcDate(-1);
const at = timesOn(day);

const servers = useShippedServers();

/** Visitor `alice` lands from a newsletter, reads pricing and signs up; `bob` comes from Google and bounces. */
const visits = [
  {
    event: browserEvent(siteId, { anon_id: 'alice', ts: at('12:00:00'), url: 'https://shop.example/?utm_source=newsletter' }),
    summaryAfter: { visitors: 1, visits: 1, pageviews: 1, events: 1 },
  },
  {
    event: browserEvent(siteId, { anon_id: 'alice', ts: at('12:05:00'), url: 'https://shop.example/pricing' }),
    summaryAfter: { visitors: 1, visits: 1, pageviews: 2, events: 2 },
  },
  {
    event: browserEvent(siteId, { anon_id: 'alice', ts: at('12:06:00'), type: 'signup', url: 'https://shop.example/pricing', props: { plan: 'pro' } }),
    summaryAfter: { visitors: 1, visits: 1, pageviews: 2, events: 3 },
  },
  {
    event: browserEvent(siteId, { anon_id: 'bob', ts: at('12:10:00'), url: 'https://shop.example/', referrer: 'https://www.google.com/search' }),
    summaryAfter: { visitors: 2, visits: 2, pageviews: 3, events: 4 },
  },
];

/** A V2 report of the day: 200, exactly { meta, data }, complete (the read waited for what was acknowledged). */
async function readV2Report(server: ShippedServer, report: string): Promise<any> {
  // summary-v2's one-day series is hourly by default (CONTRACT section 10): the day's point is read here.
  const answer = await server.request('GET', `/v1/sites/${siteId}/reports/${report}?from=${day}&to=${day}${report === 'summary-v2' ? '&interval=day' : ''}`);
  expect(answer.status, answer.text).toBe(200);
  expect(Object.keys(answer.body).sort()).toEqual(['data', 'meta']);
  expect(answer.body.meta).toMatchObject({ scope: { site_id: siteId }, range: { from: day, to: day }, timezone: 'UTC' });
  expect(answer.body.meta.completeness.complete, JSON.stringify(answer.body.meta)).toBe(true);
  return answer.body.data;
}

async function readLegacyReport(server: ShippedServer, report: string): Promise<any> {
  const answer = await server.request('GET', `/sites/${siteId}/${report}?from=${day}&to=${day}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

describe('reports right after the 202, against the shipped server', () => {
  it('count every acknowledged event in the next read, in the V2 and the legacy reports', async () => {
    const server = await servers.start();
    await createSite(server, siteId);

    // Browsers' endpoint, one event per request, and a read right after each acknowledgement.
    for (const { event, summaryAfter } of visits) {
      await ingest(server, '/v1/events', siteId, [event]);
      expect(await readV2Report(server, 'summary-v2'), `after ${event.ts}`).toMatchObject(summaryAfter);
    }

    // alice: one visit of 6 minutes (2 pageviews and a signup); bob: a bounce.
    expect(await readV2Report(server, 'summary-v2')).toEqual({
      visitors: 2,
      visits: 2,
      pageviews: 3,
      events: 4,
      bounce_rate: 0.5,
      avg_visit_duration_s: 180,
      views_per_visit: 1.5,
      series: [{ date: day, visitors: 2, visits: 2, pageviews: 3 }],
    });
    // Ranked by visits, then source; the referrer's host loses its www.
    expect(await readV2Report(server, 'sources-v2')).toEqual({
      rows: [
        { source: 'google.com', visitors: 1, visits: 1, pageviews: 1, bounce_rate: 1 },
        { source: 'newsletter', visitors: 1, visits: 1, pageviews: 2, bounce_rate: 0 },
      ],
    });
    // Ranked by pageviews, then path; both visits enter on /, alice leaves from /pricing.
    expect(await readV2Report(server, 'pages-v2')).toEqual({
      rows: [
        { path: '/', visitors: 2, pageviews: 2, entries: 2, exits: 1 },
        { path: '/pricing', visitors: 1, pageviews: 1, entries: 0, exits: 1 },
      ],
    });

    expect(await readLegacyReport(server, 'pageviews')).toEqual({ count: 3, by_day: [{ date: day, count: 3 }] });
    expect(await readLegacyReport(server, 'events')).toEqual({
      by_name: [
        { name: 'pageview', count: 3 },
        { name: 'signup', count: 1 },
      ],
    });
    expect(await readLegacyReport(server, 'sessions')).toEqual({ count: 2, avg_duration_s: 180, avg_events: 2, bounce_rate: 0.5 });

    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });

  it('count every acknowledged event in a funnel computed on the analysis thread, then stop cleanly on SIGTERM', async () => {
    const server = await servers.start();
    await createSite(server, siteId);
    for (const { event } of visits) await ingest(server, '/v1/events', siteId, [event]);
    const query = { site_id: siteId, from: day, to: day, steps: [{ type: 'pageview' }, { type: 'signup' }], window: { value: 1, unit: 'hours' }, date_mode: 'all_steps' };
    const answer = await server.request('POST', `/v1/workspaces/ws-${siteId}/analysis/funnels-v2`, { body: query });
    expect(answer.status, answer.text).toBe(200);
    // alice and bob viewed a page; alice signed up.
    expect(answer.body.data.steps.map((step: { count: number }) => step.count)).toEqual([2, 1]);
    const explanation = await server.request('POST', `/v1/workspaces/ws-${siteId}/analysis/funnels-v2/explanation`, {
      body: { query, transition: { from_step: 1, to_step: 2 }, execution_id: answer.body.data.execution_id },
    });
    expect(explanation.status, explanation.text).toBe(200);
    expect(explanation.body.data).toMatchObject({ converted: 1, dropped: 1 });
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });
});
