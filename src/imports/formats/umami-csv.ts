// Umami's website_event table as CSV (its "Data" export, or COPY website_event TO … CSV HEADER): one row per pageview
// (event_type 1) or custom event (event_type 2). session_id becomes anon_id; event_id, the event's id (UUID v5).
import { orNull, type ReaderOptions, type SourceRow, toDeviceType, toEventType } from '../import-formats.ts';
import { uuidV5 } from '../uuid-v5.ts';
import { readCsvRecords } from './csv-records.ts';
import { sourceTimeToIso } from './source-time.ts';
import { loadUmamiEventData, type UmamiEventData } from './umami-event-data.ts';
import { readZipEntries } from './zip-entries.ts';

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

export interface UmamiOptions extends ReaderOptions {
  /** The event's properties from its event_data rows (a zip's event_data file). */
  propsOf?: UmamiEventData['propsOf'];
}

export async function* readUmamiCsv(input: NodeJS.ReadableStream, options: UmamiOptions): AsyncGenerator<SourceRow> {
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
    const data = options.propsOf?.(row.event_id!);
    const props = { ...data, ...(!pageview && row.event_name !== toEventType(row.event_name!) && { name: row.event_name }) };
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
      ...(Object.keys(props).length > 0 && { props }),
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

/** What a zip's entry is, by its name: Umami's export names its files after their tables. */
function umamiEntryKind(name: string): 'event_data' | 'ignored' | 'website_event' | 'unknown' {
  const base = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
  if (name.endsWith('/')) return 'ignored';
  if (!base.endsWith('.csv')) return 'unknown';
  if (base.includes('event_data')) return 'event_data';
  // Session properties have no place in an event: they are not carried (docs/import-export.md).
  if (base.includes('session')) return 'ignored';
  return 'website_event';
}

const withFile = (file: string, row: SourceRow): SourceRow => ('error' in row ? { line: row.line, error: `${file}: ${row.error}` } : row);

/**
 * A zip holding website_event's CSV and optionally event_data's (and session data, skipped): the events of the
 * website_event file, each with its properties; errors name their file. Any other entry is an error.
 */
export async function* readUmamiZip(input: NodeJS.ReadableStream, options: UmamiOptions): AsyncGenerator<SourceRow> {
  let eventFiles = 0;
  for await (const entry of readZipEntries(input)) {
    const kind = umamiEntryKind(entry.name);
    if (kind === 'unknown') yield { line: 0, error: `${entry.name}: is not a CSV file of Umami's website_event or event_data tables` };
    if (kind !== 'website_event') {
      entry.stream.resume();
      continue;
    }
    if (++eventFiles > 1) {
      entry.stream.resume();
      yield { line: 0, error: `${entry.name}: the zip holds more than one website_event file` };
      continue;
    }
    for await (const row of readUmamiCsv(entry.stream, options)) yield withFile(entry.name, row);
  }
  if (eventFiles === 0) yield { line: 0, error: 'the zip holds no website_event CSV file' };
}

/**
 * The first pass over a zip: its event_data file, if any, checked and loaded for lookups (errors name the file).
 * @example const { errors, lookup } = await loadUmamiZipEventData(stream, 100, () => rows++)
 */
export async function loadUmamiZipEventData(
  input: NodeJS.ReadableStream,
  maxErrors: number,
  onRow: () => void,
): Promise<{ errors: { line: number; message: string }[]; lookup?: UmamiEventData }> {
  let loaded: Awaited<ReturnType<typeof loadUmamiEventData>> | undefined;
  const errors: { line: number; message: string }[] = [];
  for await (const entry of readZipEntries(input)) {
    if (umamiEntryKind(entry.name) !== 'event_data') {
      entry.stream.resume();
      continue;
    }
    if (loaded) {
      entry.stream.resume();
      errors.push({ line: 0, message: `${entry.name}: the zip holds more than one event_data file` });
      continue;
    }
    loaded = await loadUmamiEventData(entry.stream, maxErrors, onRow);
    errors.push(...loaded.errors.map((error) => ({ line: error.line, message: `${entry.name}: ${error.message}` })));
  }
  if (errors.length > 0) loaded?.lookup?.close();
  return errors.length > 0 ? { errors: errors.slice(0, maxErrors) } : { errors, lookup: loaded?.lookup };
}
