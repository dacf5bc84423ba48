// Umami's website_event CSV imported over HTTP: the reports equal the file's figures (hand-computed), a re-import
// stores nothing, a malformed line fails the whole file with its line number, and DELETE removes exactly the import.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../admin/_helpers.ts';
import { seedWorkspace, settledTableCounts, startTestServer, type TestServer } from '../_setup.ts';
import { strToU8, zipSync } from 'fflate';
import { importFile, umamiCsv, umamiEventDataCsv, type UmamiDataRow, type UmamiRow } from './_fixtures.ts';

const range = 'from=2026-03-02&to=2026-03-03';

/** Three sessions over two days: 4 pageviews, 1 custom event (a name with a space), 3 visitors. */
const rows: UmamiRow[] = [
  { session: 's-1', event: 'e0000000-0000-4000-8000-000000000001', path: '/', at: '2026-03-02 10:00:00', referrerDomain: 'google.com', region: 'US-CA', city: 'San Francisco' },
  { session: 's-1', event: 'e0000000-0000-4000-8000-000000000002', path: '/pricing', at: '2026-03-02 10:02:00' },
  { session: 's-1', event: 'e0000000-0000-4000-8000-000000000003', path: '/pricing', at: '2026-03-02 10:03:00', type: '2', name: 'Signup button' },
  { session: 's-2', event: 'e0000000-0000-4000-8000-000000000004', path: '/', at: '2026-03-02 11:00:00', browser: 'ios', os: 'iOS', device: 'mobile', country: 'DE' },
  { session: 's-3', event: 'e0000000-0000-4000-8000-000000000005', path: '/blog', at: '2026-03-03 09:00:00.250', browser: 'firefox', os: 'Linux', country: 'FR' },
];

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-10T12:00:00.000Z') });
  await seedWorkspace(server, 'um-a', { sites: ['um-site', 'um-live', 'um-props'] });
});
afterAll(async () => server.close());

async function report(site: string, name: string, extra = ''): Promise<any> {
  const response = await server.request('GET', `/v1/sites/${site}/reports/${name}?${range}${extra}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

describe('Umami website_event CSV', () => {
  let importId: string;

  it('imports every row, and the reports equal the figures of the file', async () => {
    const status = await importFile(server, 'um-site', 'umami-csv', umamiCsv(rows));
    importId = status.id;
    expect(status).toMatchObject({ format: 'umami-csv', status: 'done', phase: null, rows_read: 5, events_imported: 5, duplicates: 0, days_imported: 2, errors: [] });
    expect(status.bytes_read).toBe(status.bytes_total);
    const summary = await report('um-site', 'summary-v2');
    expect(summary).toMatchObject({ visitors: 3, visits: 3, pageviews: 4 });
    expect(summary.series).toEqual([
      { date: '2026-03-02', visitors: 2, visits: 2, pageviews: 3 },
      { date: '2026-03-03', visitors: 1, visits: 1, pageviews: 1 },
    ]);
    const pages = await report('um-site', 'pages-v2');
    expect(pages.rows.map((row: any) => [row.path, row.visitors, row.pageviews]).sort()).toEqual([['/', 2, 2], ['/blog', 1, 1], ['/pricing', 1, 1]]);
    const countries = await report('um-site', 'breakdown-v2', '&by=country');
    expect(countries.rows.map((row: any) => [row.value, row.visitors]).sort()).toEqual([['DE', 1], ['FR', 1], ['US', 1]]);
    const browsers = await report('um-site', 'breakdown-v2', '&by=browser');
    expect(browsers.rows.map((row: any) => [row.value, row.visitors]).sort()).toEqual([['Chrome', 1], ['Firefox', 1], ['Mobile Safari', 1]]);
    const sources = await report('um-site', 'sources-v2');
    expect(sources.rows.find((row: any) => row.source === 'google.com')).toMatchObject({ visitors: 1, visits: 1, pageviews: 2 });
    const stored = server.db.prepare("SELECT type, anon_id, region, city, json_extract(raw, '$.props.name') AS name FROM events WHERE site_id = 'um-site' AND type != 'pageview'").all();
    expect(stored).toEqual([{ type: 'Signup_button', anon_id: 's-1', region: null, city: null, name: 'Signup button' }]);
    const first = server.db.prepare("SELECT region, city, os, device_type, user_id FROM events WHERE site_id = 'um-site' AND ts = ?").get(Date.parse('2026-03-02T10:00:00Z'));
    expect(first).toEqual({ region: 'US-CA', city: 'San Francisco', os: 'Windows', device_type: 'desktop', user_id: null });
  });

  it('imports nothing twice: the same file again stores no event and changes no report', async () => {
    const before = await settledTableCounts(server);
    const summary = await report('um-site', 'summary-v2');
    const status = await importFile(server, 'um-site', 'umami-csv', umamiCsv(rows));
    expect(status).toMatchObject({ status: 'done', rows_read: 5, events_imported: 0, duplicates: 5, days_imported: 0 });
    const after = await settledTableCounts(server);
    expect(after['eventlog.events']).toBe(before['eventlog.events']);
    expect(await report('um-site', 'summary-v2')).toEqual(summary);
  });

  it('fails a file with malformed lines whole, naming each line (the header is line 1), and stores nothing', async () => {
    const before = await settledTableCounts(server);
    const bad = umamiCsv([
      { ...rows[0]!, event: 'e1000000-0000-4000-8000-000000000001' },
      { ...rows[1]!, event: 'e1000000-0000-4000-8000-000000000002', at: 'yesterday' },
      { ...rows[2]!, event: 'e1000000-0000-4000-8000-000000000003' },
      { ...rows[3]!, event: 'e1000000-0000-4000-8000-000000000004', type: '7' },
      { ...rows[4]!, event: 'e1000000-0000-4000-8000-000000000005', at: '2026-04-01 00:00:00' },
    ]);
    const status = await importFile(server, 'um-site', 'umami-csv', bad);
    expect(status).toMatchObject({ status: 'failed', rows_read: 5, events_imported: 0 });
    expect(status.errors).toEqual([
      { line: 3, message: 'created_at must be a date and time, not "yesterday"' },
      { line: 5, message: 'event_type must be 1 (pageview) or 2 (custom event), not "7"' },
      { line: 6, message: 'the event is in the future' },
    ]);
    const after = await settledTableCounts(server);
    expect({ ...after, imports: 0, audit_log: 0 }).toEqual({ ...before, imports: 0, audit_log: 0 });
  });

  it('deletes exactly the import: its events and their share of every report, leaving live events', async () => {
    const live = [
      { id: crypto.randomUUID(), site_id: 'um-site', anon_id: 'live-1', ts: '2026-03-02T12:00:00Z', type: 'pageview', url: 'https://shop.example/' },
      { id: crypto.randomUUID(), site_id: 'um-site', anon_id: 'live-1', ts: '2026-03-02T12:01:00Z', type: 'pageview', url: 'https://shop.example/blog' },
    ];
    // The same live events on a site that never saw an import: what um-site's reports must equal after the delete.
    const twin = live.map((event) => ({ ...event, id: crypto.randomUUID(), site_id: 'um-live' }));
    expect((await server.request('POST', '/s2s/events', { token: 'um-site', body: live })).status).toBe(202);
    expect((await server.request('POST', '/s2s/events', { token: 'um-live', body: twin })).status).toBe(202);
    await server.projected();
    expect((await report('um-site', 'summary-v2')).pageviews).toBe(6);
    const deleted = await server.request('DELETE', `/v1/sites/um-site/imports/${importId}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ id: importId, deleted_events: 5 });
    await server.projected();
    for (const name of ['summary-v2', 'pages-v2', 'sources-v2', 'campaigns-v2']) {
      expect(await report('um-site', name), name).toEqual(await report('um-live', name));
    }
    for (const by of ['country', 'browser', 'device']) {
      expect(await report('um-site', 'breakdown-v2', `&by=${by}`), by).toEqual(await report('um-live', 'breakdown-v2', `&by=${by}`));
    }
    expect((await server.request('GET', `/v1/sites/um-site/imports/${importId}`)).status).toBe(404);
    expect((await server.request('DELETE', `/v1/sites/um-site/imports/${importId}`)).status).toBe(404);
    const audit = await server.request('GET', '/workspaces/um-a/audit');
    const actions = audit.body.entries.map((entry: any) => [entry.action, entry.target]);
    expect(actions).toContainEqual(['import.delete', importId]);
    expect(actions).toContainEqual(['import.create', importId]);
  });

  it('imports the file again after its delete', async () => {
    const status = await importFile(server, 'um-site', 'umami-csv', umamiCsv(rows));
    expect(status).toMatchObject({ status: 'done', events_imported: 5, duplicates: 0 });
    expect((await report('um-site', 'summary-v2')).pageviews).toBe(6);
  });
});

describe("Umami's event_data CSV, in a zip beside website_event", () => {
  const [first, , custom] = rows.map((row) => row.event) as [string, string, string];
  /** Every data_type of Umami's layout: 1 string, 2 number, 3 boolean, 4 date, 5 array. */
  const data: UmamiDataRow[] = [
    { event: first, key: 'plan', type: '1', string: 'pro' },
    { event: first, key: 'cart.total', type: '2', number: '12.5000' },
    { event: custom, key: 'trial', type: '3', string: 'true' },
    { event: custom, key: 'renews', type: '4', date: '2026-04-02 10:00:00' },
    { event: custom, key: 'tags', type: '5', string: '["a","b"]' },
    // An event the website_event file does not hold (another website's): no event to carry it.
    { event: 'e9000000-0000-4000-8000-000000000001', key: 'plan', type: '1', string: 'free' },
  ];
  const zip = (files: Record<string, string | undefined>) => zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text ?? '')])));
  const storedProps = () =>
    Object.fromEntries(
      (server.db.prepare("SELECT anon_id, ts, type, json_extract(raw, '$.props') AS props FROM events WHERE site_id = 'um-props' ORDER BY ts").all() as any[]).map((row) => [
        `${row.type}@${new Date(row.ts).toISOString().slice(11, 19)}`,
        row.props === null ? null : JSON.parse(row.props),
      ]),
    );

  it('joins each event with its properties, of every data type (session data is skipped)', async () => {
    const status = await importFile(server, 'um-props', 'umami-csv', zip({ 'website_event.csv': umamiCsv(rows), 'event_data.csv': umamiEventDataCsv(data), 'session_data.csv': 'session_id,data_key\ns-1,x\n' }));
    // rows_read: the 6 event_data rows and the 5 website_event rows.
    expect(status).toMatchObject({ status: 'done', rows_read: 11, events_imported: 5, duplicates: 0, errors: [] });
    expect(storedProps()).toEqual({
      'pageview@10:00:00': { plan: 'pro', 'cart.total': 12.5 },
      'pageview@10:02:00': null,
      'Signup_button@10:03:00': { trial: true, renews: '2026-04-02T10:00:00.000Z', tags: ['a', 'b'], name: 'Signup button' },
      'pageview@11:00:00': null,
      'pageview@09:00:00': null,
    });
    const again = await importFile(server, 'um-props', 'umami-csv', zip({ 'event_data.csv': umamiEventDataCsv(data), 'website_event.csv': umamiCsv(rows) }));
    expect(again).toMatchObject({ status: 'done', events_imported: 0, duplicates: 5 });
  });

  it.each([
    {
      name: 'bad event_data rows',
      files: { 'website_event.csv': umamiCsv(rows), 'export/event_data.csv': umamiEventDataCsv([data[0]!, { event: first, key: 'n', type: '2', number: 'many' }, { event: first, key: '', type: '1' }, { event: first, key: 'k', type: '9' }]) },
      errors: [
        { line: 3, message: 'export/event_data.csv: number_value must be a number for data_type 2, not "many"' },
        { line: 4, message: 'export/event_data.csv: data_key is required' },
        { line: 5, message: 'export/event_data.csv: data_type must be 1 (string), 2 (number), 3 (boolean), 4 (date) or 5 (array), not "9"' },
      ],
    },
    {
      name: 'a bad website_event row',
      files: { 'website_event.csv': umamiCsv([{ ...rows[0]!, event: 'e9100000-0000-4000-8000-000000000001', at: 'soon' }]), 'event_data.csv': umamiEventDataCsv(data) },
      errors: [{ line: 2, message: 'website_event.csv: created_at must be a date and time, not "soon"' }],
    },
    { name: 'no website_event file', files: { 'event_data.csv': umamiEventDataCsv(data) }, errors: [{ line: 0, message: 'the zip holds no website_event CSV file' }] },
    { name: 'another file', files: { 'website_event.csv': umamiCsv(rows), 'notes.txt': 'hello' }, errors: [{ line: 0, message: "notes.txt: is not a CSV file of Umami's website_event or event_data tables" }] },
  ])('fails on $name, naming the file and line, and stores nothing', async ({ files, errors }) => {
    const before = await settledTableCounts(server);
    const status = await importFile(server, 'um-props', 'umami-csv', zip(files));
    expect(status).toMatchObject({ status: 'failed', events_imported: 0 });
    expect(status.errors).toEqual(errors);
    const after = await settledTableCounts(server);
    expect({ ...after, imports: 0, audit_log: 0 }).toEqual({ ...before, imports: 0, audit_log: 0 });
  });
});
