// Import fixtures built in the published layouts: Umami's website_event CSV, GoatCounter's CSV export (version 2)
// and GA4's BigQuery export as NDJSON; and what a test needs to upload one and wait for its job.
import { gzipSync } from 'node:zlib';
import type { TestServer } from '../_setup.ts';

const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
const csvLine = (values: string[]) => values.map(csvField).join(',');

export const umamiHeader = [
  'website_id', 'session_id', 'visit_id', 'event_id', 'hostname', 'browser', 'os', 'device', 'screen', 'language', 'country',
  'subdivision1', 'subdivision2', 'city', 'url_path', 'url_query', 'referrer_path', 'referrer_query', 'referrer_domain',
  'page_title', 'event_type', 'event_name', 'created_at',
];

export interface UmamiRow {
  session: string;
  event: string;
  path: string;
  at: string;
  type?: string;
  name?: string;
  browser?: string;
  os?: string;
  device?: string;
  country?: string;
  region?: string;
  city?: string;
  referrerDomain?: string;
  query?: string;
}

export function umamiCsv(rows: UmamiRow[]): string {
  const lines = rows.map((row) =>
    csvLine([
      'b9d3c2a4-0000-4000-8000-000000000001', row.session, `visit-${row.session}`, row.event, 'shop.example', row.browser ?? 'chrome',
      row.os ?? 'Windows 10', row.device ?? 'desktop', '1920x1080', 'en-US', row.country ?? 'US', row.region ?? '', '', row.city ?? '',
      row.path, row.query ?? '', row.referrerDomain ? '/' : '', '', row.referrerDomain ?? '', 'A page, "quoted"', row.type ?? '1', row.name ?? '', row.at,
    ]),
  );
  return `${csvLine(umamiHeader)}\n${lines.join('\n')}\n`;
}

/** Umami's event_data table, its published column order. */
export const umamiEventDataHeader = ['event_data_id', 'website_id', 'website_event_id', 'data_key', 'string_value', 'number_value', 'date_value', 'data_type', 'created_at'];

export interface UmamiDataRow {
  event: string;
  key: string;
  type: string;
  string?: string;
  number?: string;
  date?: string;
}

export function umamiEventDataCsv(rows: UmamiDataRow[]): string {
  const lines = rows.map((row, index) =>
    csvLine([
      `d0000000-0000-4000-8000-${String(index).padStart(12, '0')}`, 'b9d3c2a4-0000-4000-8000-000000000001', row.event, row.key, row.string ?? '', row.number ?? '',
      row.date ?? '', row.type, '2026-03-02 10:00:00',
    ]),
  );
  return `${csvLine(umamiEventDataHeader)}\n${lines.join('\n')}\n`;
}

export const goatCounterHeader = ['2Path', 'Title', 'Event', 'UserAgent', 'Browser', 'System', 'Session', 'Bot', 'Referrer', 'Referrer scheme', 'Screen size', 'Location', 'FirstVisit', 'Date'];

export interface GoatCounterRow {
  path: string;
  session: string;
  date: string;
  event?: boolean;
  bot?: string;
  browser?: string;
  system?: string;
  referrer?: string;
  scheme?: string;
  location?: string;
}

export function goatCounterCsv(rows: GoatCounterRow[]): string {
  const lines = rows.map((row) =>
    csvLine([
      row.path, 'Title', row.event ? 'true' : 'false', '', row.browser ?? 'Firefox 121', row.system ?? 'Linux', row.session, row.bot ?? '0',
      row.referrer ?? '', row.scheme ?? '', '1920,1080,1', row.location ?? 'NL', 'true', row.date,
    ]),
  );
  return `${csvLine(goatCounterHeader)}\r\n${lines.join('\r\n')}\r\n`;
}

export interface Ga4Row {
  name: string;
  micros: string;
  visitor: string;
  userId?: string;
  location?: string;
  referrer?: string;
  country?: string;
  category?: string;
  browser?: string;
  params?: { key: string; value: Record<string, unknown> }[];
}

export function ga4Ndjson(rows: Ga4Row[]): string {
  return rows
    .map((row) =>
      JSON.stringify({
        event_date: new Date(Number(row.micros) / 1000).toISOString().slice(0, 10).replaceAll('-', ''),
        event_timestamp: row.micros,
        event_name: row.name,
        event_params: [
          ...(row.location ? [{ key: 'page_location', value: { string_value: row.location } }] : []),
          ...(row.referrer ? [{ key: 'page_referrer', value: { string_value: row.referrer } }] : []),
          { key: 'ga_session_id', value: { int_value: '1772445600' } },
          ...(row.params ?? []),
        ],
        user_pseudo_id: row.visitor,
        user_id: row.userId ?? null,
        device: { category: row.category ?? 'desktop', operating_system: 'Windows', web_info: { browser: row.browser ?? 'Chrome', hostname: 'shop.example' } },
        geo: { country: row.country ?? 'Germany', region: 'Berlin', city: 'Berlin' },
        traffic_source: { name: '(direct)', medium: '(none)', source: '(direct)' },
      }),
    )
    .join('\n')
    .concat('\n');
}

export const gzip = (text: string): Uint8Array => new Uint8Array(gzipSync(text));

const mediaTypes: Record<string, string> = { 'umami-csv': 'text/csv', 'goatcounter-csv': 'text/csv', 'ga4-bigquery': 'application/x-ndjson' };

/** Uploads a file and waits for its job; returns the import's status answer. */
export async function importFile(server: TestServer, siteId: string, format: string, body: string | Uint8Array, token?: string): Promise<Record<string, any>> {
  const contentType = typeof body === 'string' ? mediaTypes[format]! : body[0] === 0x50 && body[1] === 0x4b ? 'application/zip' : 'application/gzip';
  const created = await server.request('POST', `/v1/sites/${siteId}/imports`, { rawBody: body, headers: { 'content-type': contentType, 'x-import-format': format }, token });
  if (created.status !== 202) throw new Error(`import: ${created.status} ${created.text}`);
  await server.app.imports.idle();
  await server.projected();
  const status = await server.request('GET', `/v1/sites/${siteId}/imports/${created.body.id}`, { token });
  if (status.status !== 200) throw new Error(`import status: ${status.status} ${status.text}`);
  return status.body;
}
