// Plausible's CSV export (a zip of imported_{table}_{YYYYMMDD}_{YYYYMMDD}.csv, daily aggregates): kept as imported
// daily figures and added to the summary, pages, sources, campaigns and the country, device, browser and OS
// breakdowns for their days (hand-computed below), with meta.imported; never to a filtered question; a re-import
// adds nothing; a malformed row fails the whole zip with its file and line; DELETE takes the figures out.
import { strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../admin/_helpers.ts';
import { seedWorkspace, settledTableCounts, startTestServer, type TestServer } from '../_setup.ts';

const tables: Record<string, string> = {
  visitors: 'date,visitors,pageviews,bounces,visits,visit_duration\n2026-03-01,10,30,4,12,600\n2026-03-02,5,8,2,6,120\n',
  pages: 'date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors\n2026-03-01,shop.example,/,8,7,20,,0\n2026-03-01,shop.example,/pricing,4,3,10,,0\n2026-03-02,shop.example,/,6,5,8,,0\n',
  entry_pages: 'date,entry_page,visitors,entrances,visit_duration,bounces,pageviews\n2026-03-01,/,10,12,600,4,30\n2026-03-02,/,5,6,120,2,8\n',
  exit_pages: 'date,exit_page,visitors,visit_duration,exits,bounces,pageviews\n2026-03-01,/pricing,10,600,12,4,30\n2026-03-02,/,5,120,6,2,8\n',
  sources:
    'date,source,referrer,utm_source,utm_medium,utm_campaign,utm_content,utm_term,pageviews,visitors,visits,visit_duration,bounces\n' +
    '2026-03-01,Google,,,,,,,20,6,8,400,2\n2026-03-01,Direct / None,,,,,,,10,4,4,200,2\n2026-03-02,Newsletter,,newsletter,email,spring,,,8,5,6,120,2\n',
  custom_events: 'date,name,link_url,path,visitors,events\n2026-03-02,Signup,,,2,3\n',
  locations: 'date,country,region,city,visitors,visits,visit_duration,bounces,pageviews\n2026-03-01,DE,DE-BE,2950159,6,8,400,2,20\n2026-03-01,US,US-CA,5391959,4,4,200,2,10\n2026-03-02,DE,,0,5,6,120,2,8\n',
  devices: 'date,device,visitors,visits,visit_duration,bounces,pageviews\n2026-03-01,Desktop,10,12,600,4,30\n2026-03-02,Mobile,5,6,120,2,8\n',
  browsers: 'date,browser,browser_version,visitors,visits,visit_duration,bounces,pageviews\n2026-03-01,Chrome,120,6,8,400,2,20\n2026-03-01,Chrome,121,4,4,200,2,10\n2026-03-02,Firefox,121,5,6,120,2,8\n',
  operating_systems: 'date,operating_system,operating_system_version,visitors,visits,visit_duration,bounces,pageviews\n2026-03-01,Mac,14,10,12,600,4,30\n2026-03-02,Windows,11,5,6,120,2,8\n',
};

function plausibleZip(files: Record<string, string>): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(files).map(([table, text]) => [`imported_${table}_20260301_20260302.csv`, strToU8(text)])));
}

const range = 'from=2026-03-01&to=2026-03-02';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-10T12:00:00.000Z') });
  await seedWorkspace(server, 'pl-a', { sites: ['pl-site', 'pl-from', 'pl-to'] });
});
afterAll(async () => server.close());

async function answer(name: string, extra = ''): Promise<any> {
  const response = await server.request('GET', `/v1/sites/pl-site/reports/${name}?${range}${extra}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}
const pairs = (rows: any[], key = 'value') => rows.map((row) => [row[key], row.visitors, row.visits]).sort();

async function importZip(zip: Uint8Array): Promise<any> {
  const created = await server.request('POST', '/v1/sites/pl-site/imports', { rawBody: zip, headers: { 'content-type': 'application/zip', 'x-import-format': 'plausible-csv' } });
  expect(created.status, created.text).toBe(202);
  await server.app.imports.idle();
  return (await server.request('GET', `/v1/sites/pl-site/imports/${created.body.id}`)).body;
}

describe('Plausible CSV export (daily aggregates)', () => {
  let importId: string;
  let live: Record<string, any>;

  it('adds the daily figures to every report of their days, with meta.imported', async () => {
    // One live pageview on the second day, beside the imported figures.
    const event = { id: crypto.randomUUID(), site_id: 'pl-site', anon_id: 'live-1', ts: '2026-03-02T09:00:00Z', type: 'pageview', url: 'https://shop.example/' };
    expect((await server.request('POST', '/s2s/events', { token: 'pl-site', body: event })).status).toBe(202);
    await server.projected();
    live = (await answer('summary-v2')).data;
    const status = await importZip(plausibleZip(tables));
    importId = status.id;
    expect(status).toMatchObject({ format: 'plausible-csv', status: 'done', rows_read: 23, events_imported: 23, duplicates: 0, days_imported: 2, errors: [] });
    const summary = await answer('summary-v2');
    expect(summary.meta).toMatchObject({ imported: true, inexact: ['visitors'] });
    // events: every pageview (1 live, 38 imported) and the 3 imported custom events.
    expect(summary.data).toMatchObject({ visitors: 16, visits: 19, pageviews: 39, events: 42, avg_visit_duration_s: 37.9 });
    expect(summary.data.series).toEqual([
      { date: '2026-03-01', visitors: 10, visits: 12, pageviews: 30 },
      { date: '2026-03-02', visitors: 6, visits: 7, pageviews: 9 },
    ]);
    const pages = await answer('pages-v2');
    expect(pages.meta.imported).toBe(true);
    expect(pages.data.rows.map((row: any) => [row.path, row.visitors, row.pageviews]).sort()).toEqual([['/', 13, 29], ['/pricing', 3, 10]]);
    const sources = await answer('sources-v2');
    expect(sources.data.rows.map((row: any) => [row.source, row.visitors, row.visits]).sort()).toEqual([['Google', 6, 8], ['Newsletter', 5, 6], ['direct', 5, 5]]);
    const campaigns = await answer('campaigns-v2');
    expect(campaigns.data.rows.map((row: any) => [row.utm_source, row.utm_medium, row.utm_campaign, row.visitors, row.visits])).toEqual([['newsletter', 'email', 'spring', 5, 6]]);
    expect(pairs((await answer('breakdown-v2', '&by=country')).data.rows)).toEqual([['DE', 11, 14], ['US', 4, 4]]);
    // Regions and cities as Plausible wrote them (ISO 3166-2, GeoNames ids); its unknowns ('' and 0) count under the country only.
    expect(pairs((await answer('breakdown-v2', '&by=region')).data.rows)).toEqual([['DE-BE', 6, 8], ['US-CA', 4, 4]]);
    expect(pairs((await answer('breakdown-v2', '&by=city')).data.rows)).toEqual([['2950159', 6, 8], ['5391959', 4, 4]]);
    expect((await answer('breakdown-v2', '&by=city')).meta.imported).toBe(true);
    expect(pairs((await answer('breakdown-v2', '&by=device')).data.rows)).toEqual([['desktop', 10, 12], ['mobile', 5, 6]]);
    expect(pairs((await answer('breakdown-v2', '&by=browser')).data.rows)).toEqual([['Chrome', 10, 12], ['Firefox', 5, 6]]);
    expect(pairs((await answer('breakdown-v2', '&by=os')).data.rows)).toEqual([['Mac', 10, 12], ['Windows', 5, 6]]);
  });

  it('adds nothing to a filtered question (aggregates cannot be cross-filtered)', async () => {
    const filtered = await answer('summary-v2', '&country=DE');
    expect(filtered.meta.imported).toBeUndefined();
    expect(filtered.data.pageviews).toBe(0);
    const countries = await answer('breakdown-v2', '&by=country&device=desktop');
    expect(countries.meta.imported).toBeUndefined();
  });

  it('a re-import adds nothing', async () => {
    const before = (await answer('summary-v2')).data;
    const status = await importZip(plausibleZip(tables));
    expect(status).toMatchObject({ status: 'done', events_imported: 0, duplicates: 23, days_imported: 0 });
    expect((await answer('summary-v2')).data).toEqual(before);
    expect((await server.request('DELETE', `/v1/sites/pl-site/imports/${status.id}`)).body.deleted_events).toBe(0);
  });

  it.each([
    { name: 'a bad count', files: { ...tables, devices: 'date,device,visitors,visits,visit_duration,bounces,pageviews\n2026-03-01,Desktop,10,12,600,4,30\n2026-03-02,Mobile,five,6,120,2,8\n' }, errors: [{ line: 3, message: 'imported_devices_20260301_20260302.csv: visitors must be a non-negative integer, not "five"' }] },
    { name: 'a bad date', files: { visitors: 'date,visitors,pageviews,bounces,visits,visit_duration\n03/01/2026,1,1,1,1,1\n' }, errors: [{ line: 2, message: 'imported_visitors_20260301_20260302.csv: date must be YYYY-MM-DD, not "03/01/2026"' }] },
    { name: 'a region that is not ISO 3166-2', files: { ...tables, locations: 'date,country,region,city,visitors,visits,visit_duration,bounces\n2026-03-01,DE,DE-BE,2950159,1,1,0,1\n2026-03-01,DE,Berlin,2950159,1,1,0,1\n' }, errors: [{ line: 3, message: 'imported_locations_20260301_20260302.csv: region must be an ISO 3166-2 code (such as DE-BE) or empty, not "Berlin"' }] },
    { name: 'a city that is not a GeoNames id', files: { ...tables, locations: 'date,country,region,city,visitors,visits,visit_duration,bounces\n2026-03-01,DE,DE-BE,Berlin,1,1,0,1\n' }, errors: [{ line: 2, message: 'imported_locations_20260301_20260302.csv: city must be a GeoNames id (digits; 0 for unknown) or empty, not "Berlin"' }] },
    { name: 'a missing column', files: { ...tables, browsers: 'date,browser,visitors\n2026-03-01,Chrome,1\n' }, errors: [{ line: 1, message: 'imported_browsers_20260301_20260302.csv: the header lacks the columns visits, visit_duration, bounces' }] },
  ])('fails the whole zip on $name, naming its file and line, and stores nothing', async ({ files, errors }) => {
    const before = await settledTableCounts(server);
    const status = await importZip(plausibleZip({ ...files, visitors: files.visitors!.replaceAll('2026-03-0', '2026-02-2') }));
    expect(status.status).toBe('failed');
    expect(status.errors).toEqual(errors);
    expect((await settledTableCounts(server)).imported_daily).toBe(before.imported_daily);
  });

  it('refuses a zip holding another file', async () => {
    const zip = zipSync({ 'notes.txt': strToU8('hello') });
    const status = await importZip(zip);
    expect(status).toMatchObject({ status: 'failed', errors: [{ line: 0, message: "notes.txt: is not one of Plausible's imported_{table}_{YYYYMMDD}_{YYYYMMDD}.csv files" }] });
  });

  it('DELETE takes exactly its figures out', async () => {
    const deleted = await server.request('DELETE', `/v1/sites/pl-site/imports/${importId}`);
    expect(deleted.status, deleted.text).toBe(200);
    const summary = await answer('summary-v2');
    expect(summary.meta.imported).toBeUndefined();
    expect(summary.data).toEqual(live);
  });
});

describe('plausible-csv export', () => {
  const ua = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
  const at = (day: string, time: string) => `2026-03-0${day}T${time}Z`;
  const live = (anon: string, ts: string, url: string, extra: Record<string, unknown> = {}) => ({
    id: crypto.randomUUID(), site_id: 'pl-from', anon_id: anon, ts, type: 'pageview', url, context: { user_agent: ua }, ...extra,
  });

  it("round-trips through Plausible's layout: the figures imported from the zip equal the site's", async () => {
    const events = [
      live('a', at('1', '10:00:00'), 'https://shop.example/', { referrer: 'https://www.google.com/' }),
      live('a', at('1', '10:02:00'), 'https://shop.example/pricing'),
      live('a', at('1', '10:03:00'), 'https://shop.example/pricing', { type: 'signup' }),
      live('b', at('1', '12:00:00'), 'https://shop.example/'),
      live('c', at('2', '09:00:00'), 'https://shop.example/blog', { referrer: 'https://news.ycombinator.com/' }),
    ];
    expect((await server.request('POST', '/s2s/events', { token: 'pl-from', body: events })).status).toBe(202);
    await server.projected();
    const exported = await fetch(`${server.url}/v1/sites/pl-from/export?${range}&format=plausible-csv`, { headers: { authorization: `Bearer ${server.app.context.adminToken}` } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/zip');
    const zip = new Uint8Array(await exported.arrayBuffer());
    const files = unzipSync(zip);
    expect(Object.keys(files).sort()).toEqual(
      ['browsers', 'custom_events', 'devices', 'entry_pages', 'exit_pages', 'locations', 'operating_systems', 'pages', 'sources', 'visitors'].map((table) => `imported_${table}_20260301_20260302.csv`),
    );
    expect(new TextDecoder().decode(files['imported_visitors_20260301_20260302.csv'])).toBe('date,visitors,pageviews,bounces,visits,visit_duration\n2026-03-01,2,3,1,2,180\n2026-03-02,1,1,1,1,0\n');
    const created = await server.request('POST', '/v1/sites/pl-to/imports', { rawBody: zip, headers: { 'content-type': 'application/zip', 'x-import-format': 'plausible-csv' } });
    await server.app.imports.idle();
    expect((await server.request('GET', `/v1/sites/pl-to/imports/${created.body.id}`)).body).toMatchObject({ status: 'done', errors: [] });
    for (const [name, extra] of [['summary-v2', ''], ['pages-v2', ''], ['sources-v2', ''], ['breakdown-v2', '&by=device'], ['breakdown-v2', '&by=browser'], ['breakdown-v2', '&by=os']] as const) {
      const from = await server.request('GET', `/v1/sites/pl-from/reports/${name}?${range}${extra}`);
      const to = await server.request('GET', `/v1/sites/pl-to/reports/${name}?${range}${extra}`);
      expect(to.body.meta.imported, name).toBe(true);
      expect(to.body.data, `${name}${extra}`).toEqual(from.body.data);
    }
  });
});
