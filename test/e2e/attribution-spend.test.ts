// Attribution, spend and ROI against the shipped server (a child process started as a user starts it): a visit from
// a newsletter campaign, a purchase 10 minutes later, the campaign's spend imported as CSV over HTTP; attribution
// results credit the purchase to the campaign, ROI divides its revenue by its spend in the one currency, and the
// funnel's correlation answers on the analysis thread. Then SIGTERM drains and exits 0.
import { describe, expect, it } from 'vitest';
import { browserEvent, cleanExit, createSite, ingest, timesOn, useShippedServers, utcDate } from './_server.ts';

const siteId = 'attribution-e2e';
const day = utcDate(-1);
const at = timesOn(day);
const servers = useShippedServers();

describe('the shipped server', () => {
  it('attributes a purchase to the campaign of its visit, imports spend as CSV and answers ROI, then stops cleanly', async () => {
    const server = await servers.start();
    await createSite(server, siteId);
    const workspace = `/v1/workspaces/ws-${siteId}`;
    await ingest(server, '/v1/events', siteId, [
      browserEvent(siteId, { anon_id: 'carol', ts: at('09:00:00'), url: 'https://shop.example/?utm_source=newsletter&utm_medium=email&utm_campaign=autumn' }),
    ]);
    await ingest(server, '/v1/s2s/events', siteId, [
      { ...browserEvent(siteId, { anon_id: 'carol', ts: at('09:10:00'), type: 'purchase', revenue: { amount: '45.00', currency: 'EUR' } }), url: undefined },
    ]);

    const csv = `\uFEFFdate,source,medium,campaign,amount,currency\r\n${day},newsletter,email,autumn,"15.00",EUR\r\n`;
    const imported = await server.request('POST', `${workspace}/spend/csv`, { rawBody: csv, headers: { 'content-type': 'text/csv' } });
    expect(imported.status, imported.text).toBe(201);

    const results = await server.request('GET', `${workspace}/attribution/results?model=last_touch&from=${day}&to=${day}`);
    expect(results.status, results.text).toBe(200);
    expect(results.body.results).toHaveLength(1);
    expect(results.body.results[0]).toMatchObject({ site_id: siteId, person: 'anon:carol', revenue: { amount: '45.00', currency: 'EUR' } });
    expect(results.body.results[0].touchpoints).toEqual([expect.objectContaining({ source: 'newsletter', medium: 'email', campaign: 'autumn', credit: 1 })]);

    const roi = await server.request('GET', `${workspace}/roi?from=${day}&to=${day}`);
    expect(roi.status, roi.text).toBe(200);
    expect(roi.body.currencies).toEqual([{ currency: 'EUR', spend: '15.00', revenue: '45.00', conversions: 1, roas: 3, roi: 2 }]);
    expect(roi.body.campaigns).toEqual([
      expect.objectContaining({ source: 'newsletter', medium: 'email', campaign: 'autumn', conversions: 1, roas: 3, roi: 2 }),
    ]);

    const query = { site_id: siteId, from: day, to: day, steps: [{ type: 'pageview' }, { type: 'purchase' }], window: { value: 1, unit: 'hours' } };
    const funnel = await server.request('POST', `${workspace}/analysis/funnels-v2`, { body: query });
    expect(funnel.status, funnel.text).toBe(200);
    const correlation = await server.request('POST', `${workspace}/analysis/funnels-v2/correlation`, {
      body: { query, transition: { from_step: 1, to_step: 2 }, execution_id: funnel.body.data.execution_id },
    });
    expect(correlation.status, correlation.text).toBe(200);
    // One person converted and nobody dropped: nothing to compare, and the answer says so.
    expect(correlation.body.data.factors).toEqual([]);
    expect(correlation.body.meta.warnings).toContainEqual(expect.stringContaining('nobody dropped'));
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });
});
