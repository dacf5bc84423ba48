// GoatCounter's CSV export (version 2) and GA4's BigQuery export (NDJSON, gzip): the reports after import equal the
// files' figures (hand-computed), bots stay bots, re-imports store nothing, a malformed line fails the file with its
// line number, and the first 100 errors are kept (the 100th kept, the 101st not).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../admin/_helpers.ts';
import { seedWorkspace, settledTableCounts, startTestServer, type TestServer } from '../_setup.ts';
import { ga4Ndjson, type Ga4Row, goatCounterCsv, goatCounterHeader, type GoatCounterRow, gzip, importFile } from './_fixtures.ts';

const range = 'from=2026-03-02&to=2026-03-03';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-10T12:00:00.000Z') });
  await seedWorkspace(server, 'gc-a', { sites: ['gc-site', 'ga-site'] });
});
afterAll(async () => server.close());

async function report(site: string, name: string, extra = ''): Promise<any> {
  const response = await server.request('GET', `/v1/sites/${site}/reports/${name}?${range}${extra}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}
const pairs = (rows: any[], key = 'value') => rows.map((row) => [row[key], row.visitors]).sort();

/** Visitor A: 2 pageviews and an event (from Hacker News); B: 1 pageview; a bot; C: 1 pageview from a campaign. */
const goatRows: GoatCounterRow[] = [
  { path: '/', session: 'A', date: '2026-03-02T10:00:00Z', referrer: 'news.ycombinator.com/item?id=1', scheme: 'h', location: 'US-TX' },
  { path: '/about', session: 'A', date: '2026-03-02T10:05:00Z', location: 'US-TX' },
  { path: 'click-download', session: 'A', date: '2026-03-02T10:06:00Z', event: true, location: 'US-TX' },
  { path: '/', session: 'B', date: '2026-03-02T12:00:00Z', browser: 'Chrome 120', system: 'Windows 10' },
  { path: '/', session: 'crawler', date: '2026-03-02T12:30:00Z', bot: '3' },
  { path: '/docs', session: 'C', date: '2026-03-03T08:00:00+02:00', referrer: 'newsletter', scheme: 'c' },
];

describe('GoatCounter CSV export', () => {
  it('imports every row; the reports equal the file, its bot stays a bot', async () => {
    const status = await importFile(server, 'gc-site', 'goatcounter-csv', goatCounterCsv(goatRows));
    expect(status).toMatchObject({ status: 'done', rows_read: 6, events_imported: 6, duplicates: 0, days_imported: 2, errors: [] });
    const summary = await report('gc-site', 'summary-v2');
    expect(summary).toMatchObject({ visitors: 3, visits: 3, pageviews: 4 });
    expect(summary.series).toEqual([
      { date: '2026-03-02', visitors: 2, visits: 2, pageviews: 3 },
      { date: '2026-03-03', visitors: 1, visits: 1, pageviews: 1 },
    ]);
    expect((await report('gc-site', 'pages-v2')).rows.map((row: any) => [row.path, row.visitors, row.pageviews]).sort()).toEqual([['/', 2, 2], ['/about', 1, 1], ['/docs', 1, 1]]);
    expect(pairs((await report('gc-site', 'breakdown-v2', '&by=country')).rows)).toEqual([['NL', 2], ['US', 1]]);
    expect(pairs((await report('gc-site', 'breakdown-v2', '&by=browser')).rows)).toEqual([['Chrome', 1], ['Firefox', 2]]);
    expect(pairs((await report('gc-site', 'breakdown-v2', '&by=os')).rows)).toEqual([['Linux', 2], ['Windows', 1]]);
    const sources = (await report('gc-site', 'sources-v2')).rows;
    expect(sources.find((row: any) => row.source === 'news.ycombinator.com')).toMatchObject({ visitors: 1, pageviews: 2 });
    expect(sources.find((row: any) => row.source === 'newsletter')).toMatchObject({ visitors: 1, pageviews: 1 });
    const bots = server.db.prepare("SELECT anon_id, is_bot FROM events WHERE site_id = 'gc-site' AND is_bot = 1").all();
    expect(bots).toEqual([{ anon_id: 'crawler', is_bot: 1 }]);
    expect(server.db.prepare("SELECT type, path FROM events WHERE site_id = 'gc-site' AND type != 'pageview'").all()).toEqual([{ type: 'click-download', path: null }]);
  });

  it('stores nothing twice', async () => {
    const status = await importFile(server, 'gc-site', 'goatcounter-csv', gzip(goatCounterCsv(goatRows)));
    expect(status).toMatchObject({ status: 'done', events_imported: 0, duplicates: 6 });
  });

  const scenarios = [
    { name: 'a version 1 header', file: `1Path,Title,Event,Bot,Session,FirstVisit,Referrer,Referrer scheme,Browser,Screen size,Location,Date\n/,T,false,0,A,true,,,,,,2026-03-02T10:00:00Z\n`, errors: [{ line: 1, message: 'the header must start with 2Path (GoatCounter export format version 2)' }] },
    { name: 'a row missing a field', file: `${goatCounterHeader.join(',')}\n/,T,false,,Firefox,Linux,A,0,,,,NL,true\n`, errors: [{ line: 2, message: 'has 13 fields where the header has 14' }] },
    { name: 'an unclosed quote', file: `${goatCounterHeader.join(',')}\n/,T,false,,Firefox,Linux,A,0,,,,NL,true,2026-03-02T10:00:00Z\n"/x,T\n`, errors: [{ line: 3 }] },
    { name: 'an empty session', file: goatCounterCsv([{ path: '/', session: '', date: '2026-03-02T10:00:00Z' }]), errors: [{ line: 2, message: 'Session must not be empty' }] },
  ];
  it.each(scenarios)('fails $name with its line number and stores nothing', async ({ file, errors }) => {
    const before = await settledTableCounts(server);
    const status = await importFile(server, 'gc-site', 'goatcounter-csv', file);
    expect(status.status).toBe('failed');
    expect(status.errors).toMatchObject(errors);
    const after = await settledTableCounts(server);
    expect(after['eventlog.events']).toBe(before['eventlog.events']);
  });

  it.each([
    { bad: 100, kept: 100, lastLine: 101 },
    { bad: 101, kept: 100, lastLine: 101 },
  ])('keeps the first 100 errors ($bad bad rows: $kept kept)', async ({ bad, kept, lastLine }) => {
    const file = goatCounterCsv(Array.from({ length: bad }, (_, index) => ({ path: `/p${index}`, session: 'S', date: 'not a date' })));
    const status = await importFile(server, 'gc-site', 'goatcounter-csv', file);
    expect(status).toMatchObject({ status: 'failed', rows_read: bad });
    expect(status.errors).toHaveLength(kept);
    expect(status.errors.at(-1).line).toBe(lastLine);
  });
});

const micros = (iso: string) => `${Date.parse(iso)}000`;
/** 111.1: 2 pageviews (a campaign) and a purchase once signed in; 222.2 (signed in): a pageview and session_start. */
const gaRows: Ga4Row[] = [
  { name: 'page_view', micros: micros('2026-03-02T10:00:00Z'), visitor: '111.1', location: 'https://shop.example/?utm_source=newsletter&utm_campaign=spring' },
  { name: 'page_view', micros: micros('2026-03-02T10:10:00Z'), visitor: '111.1', location: 'https://shop.example/pricing', referrer: 'https://shop.example/' },
  {
    name: 'purchase', micros: micros('2026-03-02T10:12:00.123456Z'), visitor: '111.1', userId: 'cust-9', location: 'https://shop.example/pricing',
    params: [{ key: 'value', value: { double_value: 49.99 } }, { key: 'currency', value: { string_value: 'EUR' } }],
  },
  { name: 'page_view', micros: micros('2026-03-03T09:00:00Z'), visitor: '222.2', userId: 'cust-7', location: 'https://shop.example/', country: 'United States', category: 'mobile', browser: 'Safari' },
  { name: 'session_start', micros: micros('2026-03-03T09:00:00Z'), visitor: '222.2', userId: 'cust-7', location: 'https://shop.example/', country: 'United States', category: 'mobile', browser: 'Safari' },
];

describe('GA4 BigQuery export (NDJSON)', () => {
  it('imports every row (gzip); the reports equal the file; user ids and revenue are kept', async () => {
    const status = await importFile(server, 'ga-site', 'ga4-bigquery', gzip(ga4Ndjson(gaRows)));
    expect(status).toMatchObject({ status: 'done', rows_read: 5, events_imported: 5, days_imported: 2, errors: [] });
    const summary = await report('ga-site', 'summary-v2');
    expect(summary).toMatchObject({ visitors: 2, visits: 2, pageviews: 3 });
    expect(pairs((await report('ga-site', 'breakdown-v2', '&by=country')).rows)).toEqual([['DE', 1], ['US', 1]]);
    expect(pairs((await report('ga-site', 'breakdown-v2', '&by=device')).rows)).toEqual([['desktop', 1], ['mobile', 1]]);
    const campaigns = (await report('ga-site', 'campaigns-v2')).rows;
    expect(campaigns.map((row: any) => [row.utm_source, row.utm_campaign, row.visitors])).toEqual([['newsletter', 'spring', 1]]);
    const purchase = server.db.prepare("SELECT anon_id, user_id, revenue_minor, revenue_currency, ts FROM events WHERE site_id = 'ga-site' AND type = 'purchase'").get();
    expect(purchase).toEqual({ anon_id: '111.1', user_id: 'cust-9', revenue_minor: 4999, revenue_currency: 'EUR', ts: Date.parse('2026-03-02T10:12:00.123Z') });
  });

  it('stores nothing twice (plain NDJSON this time)', async () => {
    expect(await importFile(server, 'ga-site', 'ga4-bigquery', ga4Ndjson(gaRows))).toMatchObject({ status: 'done', events_imported: 0, duplicates: 5 });
  });

  it('fails a malformed line with its number and stores nothing', async () => {
    const before = await settledTableCounts(server);
    const lines = ga4Ndjson(gaRows.map((row) => ({ ...row, visitor: `x-${row.visitor}` }))).split('\n');
    lines[2] = '{"event_name": "page_view",';
    lines[3] = JSON.stringify({ event_timestamp: 'soon', event_name: 'page_view', user_pseudo_id: 'x' });
    const status = await importFile(server, 'ga-site', 'ga4-bigquery', lines.join('\n'));
    expect(status).toMatchObject({ status: 'failed', events_imported: 0 });
    expect(status.errors).toEqual([
      { line: 3, message: 'is not valid JSON' },
      { line: 4, message: 'event_timestamp must be microseconds since the epoch' },
    ]);
    expect((await settledTableCounts(server))['eventlog.events']).toBe(before['eventlog.events']);
  });
});
