// Umami's website_event table as CSV (its "Data" export, or COPY website_event TO … CSV HEADER): one row per pageview
// (event_type 1) or custom event (event_type 2). session_id becomes anon_id; event_id, the event's id (UUID v5).
import { orNull, type ReaderOptions, type SourceRow, toDeviceType, toEventType } from '../import-formats.ts';
import { uuidV5 } from '../uuid-v5.ts';
import { readCsvRecords } from './csv-records.ts';
import { sourceTimeToIso } from './source-time.ts';

export const umamiColumns = [
  'website_id', 'session_id', 'visit_id', 'event_id', 'hostname', 'browser', 'os', 'device', 'screen', 'language', 'country',
  'subdivision1', 'subdivision2', 'city', 'url_path', 'url_query', 'referrer_path', 'referrer_query', 'referrer_domain',
  'page_title', 'event_type', 'event_name', 'created_at',
] as const;

/** Umami's browser ids (detect-browser's names) as the user-agent parser names them for live events. */
const browserNames: Record<string, string> = {
  chrome: 'Chrome', crios: 'Chrome', firefox: 'Firefox', fxios: 'Firefox', safari: 'Safari', ios: 'Mobile Safari',
  'ios-webview': 'Mobile Safari', 'edge-chromium': 'Edge', edge: 'Edge', 'edge-ios': 'Edge', opera: 'Opera',
  samsung: 'Samsung Internet', 'chromium-webview': 'Chrome WebView', facebook: 'Facebook', yandexbrowser: 'Yandex',
};

/** Umami's OS names (detect-browser's) as the user-agent parser's. */
export function toOsName(os: string): string {
  if (/^windows/i.test(os)) return 'Windows';
  if (/^mac ?os|^os ?x/i.test(os)) return 'Mac OS';
  if (/^android/i.test(os)) return 'Android';
  return os;
}

export async function* readUmamiCsv(input: NodeJS.ReadableStream, options: ReaderOptions): AsyncGenerator<SourceRow> {
  for await (const record of readCsvRecords(input, umamiColumns)) {
    if ('error' in record) {
      yield record;
      continue;
    }
    const row = record.values;
    const ts = sourceTimeToIso(row.created_at!);
    if (!ts) {
      yield { line: record.line, error: `created_at must be a date and time, not ${JSON.stringify(row.created_at)}` };
      continue;
    }
    const pageview = row.event_type === '1';
    if (!pageview && row.event_type !== '2') {
      yield { line: record.line, error: `event_type must be 1 (pageview) or 2 (custom event), not ${JSON.stringify(row.event_type)}` };
      continue;
    }
    if (!pageview && !row.event_name) {
      yield { line: record.line, error: 'event_name is required for a custom event (event_type 2)' };
      continue;
    }
    const url = row.hostname ? `https://${row.hostname}${row.url_path || '/'}${row.url_query ? `?${row.url_query}` : ''}` : null;
    const referrer = row.referrer_domain ? `https://${row.referrer_domain}${row.referrer_path || '/'}${row.referrer_query ? `?${row.referrer_query}` : ''}` : null;
    const screen = /^(\d{1,6})x(\d{1,6})$/.exec(row.screen ?? '');
    const context: Record<string, unknown> = {};
    if (row.language) context.locale = row.language;
    if (row.page_title) context.title = row.page_title;
    if (screen) context.screen = { w: Number(screen[1]), h: Number(screen[2]) };
    const wire: Record<string, unknown> = {
      id: uuidV5(`umami:${options.siteId}:${row.event_id}`),
      site_id: options.siteId,
      anon_id: row.session_id,
      ts,
      type: pageview ? 'pageview' : toEventType(row.event_name!),
      url,
      referrer,
      ...(Object.keys(context).length > 0 && { context }),
      ...(!pageview && row.event_name !== toEventType(row.event_name!) && { props: { name: row.event_name } }),
    };
    yield {
      line: record.line,
      event: {
        wire,
        facts: {
          browser: row.browser ? (browserNames[row.browser] ?? row.browser) : null,
          os: row.os ? toOsName(row.os) : null,
          device_type: toDeviceType(row.device),
          // Umami drops bots at collection: none are in its export.
          is_bot: false,
          country: orNull(row.country),
          region: orNull(row.subdivision1),
          city: orNull(row.city),
        },
      },
    };
  }
}
