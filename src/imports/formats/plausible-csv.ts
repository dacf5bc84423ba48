// Plausible's CSV export (Site settings → Imports & Exports → Export data): a zip of
// imported_{table}_{YYYYMMDD}_{YYYYMMDD}.csv, daily aggregates only. Each row becomes one daily figure of a dimension
// value (the site's totals, a page, a source, a campaign, a country, …), kept as imported figures and added to the
// reports for their days (src/read-model/, docs/import-export.md). Rows are checked as they are read.
import { type ReaderOptions } from '../import-formats.ts';
import { campaignKey } from '../../vocabulary/dimensions.ts';
import { readCsvRecords } from './csv-records.ts';
import { readZipEntries } from './zip-entries.ts';

/** The dimensions imported figures are kept under ('total': the site's own daily totals). */
export type ImportedDimension = 'total' | 'page' | 'entry_page' | 'exit_page' | 'source' | 'campaign' | 'country' | 'region' | 'city' | 'device' | 'browser' | 'os' | 'event';

export interface ImportedFigure {
  day: string;
  dimension: ImportedDimension;
  value: string;
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  duration_s: number;
  events: number;
}

export type AggregateRow = { line: number; file: string; figures: ImportedFigure[] } | { line: number; file: string; error: string };

type Values = Record<string, string>;
type Counts = Omit<ImportedFigure, 'day' | 'dimension' | 'value'>;

/** Each table: its columns (Plausible's layout) and the figures of one of its rows. */
const tables: Record<string, { columns: readonly string[]; figures: (row: Values, counts: Counts) => [ImportedDimension, string, Counts][]; check?: (row: Values) => string | undefined }> = {
  visitors: { columns: ['date', 'visitors', 'pageviews', 'bounces', 'visits', 'visit_duration'], figures: (_row, counts) => [['total', '', counts]] },
  pages: { columns: ['date', 'hostname', 'page', 'visits', 'visitors', 'pageviews'], figures: (row, counts) => [['page', row.page!, counts]] },
  entry_pages: { columns: ['date', 'entry_page', 'visitors', 'entrances', 'visit_duration', 'bounces'], figures: (row, counts) => [['entry_page', row.entry_page!, counts]] },
  exit_pages: { columns: ['date', 'exit_page', 'visitors', 'exits'], figures: (row, counts) => [['exit_page', row.exit_page!, counts]] },
  sources: {
    columns: ['date', 'source', 'utm_medium', 'utm_campaign', 'visitors', 'visits', 'visit_duration', 'bounces'],
    figures: (row, counts) => {
      const campaign = campaignKey(row.utm_source || null, row.utm_medium || null, row.utm_campaign || null);
      return [
        // Plausible names the visits without a source "Direct / None"; ours are "direct".
        ['source', !row.source || row.source === 'Direct / None' ? 'direct' : row.source, counts],
        ...(campaign !== null ? [['campaign', campaign, counts] as [ImportedDimension, string, Counts]] : []),
      ];
    },
  },
  custom_events: { columns: ['date', 'name', 'visitors', 'events'], figures: (row, counts) => [['event', row.name!, counts]] },
  locations: {
    columns: ['date', 'country', 'region', 'city', 'visitors', 'visits', 'visit_duration', 'bounces'],
    // Regions (ISO 3166-2) and cities (GeoNames ids) are kept as Plausible wrote them: an empty region and city 0
    // are its "unknown", counted under the country only.
    figures: (row, counts) => [
      ['country', row.country || '', counts],
      ...(row.region ? [['region', row.region, counts] as [ImportedDimension, string, Counts]] : []),
      ...(row.city && row.city !== '0' ? [['city', row.city, counts] as [ImportedDimension, string, Counts]] : []),
    ],
    check: (row) => {
      if (row.region && !/^[A-Z]{2}-[A-Z0-9]{1,3}$/.test(row.region)) return `region must be an ISO 3166-2 code (such as DE-BE) or empty, not ${JSON.stringify(row.region)}`;
      if (row.city && !/^\d{1,10}$/.test(row.city)) return `city must be a GeoNames id (digits; 0 for unknown) or empty, not ${JSON.stringify(row.city)}`;
      return undefined;
    },
  },
  devices: { columns: ['date', 'device', 'visitors', 'visits', 'visit_duration', 'bounces'], figures: (row, counts) => [['device', (row.device || '').toLowerCase(), counts]] },
  browsers: { columns: ['date', 'browser', 'visitors', 'visits', 'visit_duration', 'bounces'], figures: (row, counts) => [['browser', row.browser || '', counts]] },
  operating_systems: { columns: ['date', 'operating_system', 'visitors', 'visits', 'visit_duration', 'bounces'], figures: (row, counts) => [['os', row.operating_system || '', counts]] },
};

const fileName = /^(?:.*\/)?imported_([a-z_]+)_(\d{8})_(\d{8})\.csv$/;
const countColumns = ['visitors', 'visits', 'pageviews', 'bounces', 'visit_duration', 'events', 'entrances', 'exits'] as const;

function countsOf(row: Values): Counts | string {
  const numbers: Record<string, number> = {};
  for (const column of countColumns) {
    const text = row[column];
    if (text === undefined || text === '') {
      numbers[column] = 0;
      continue;
    }
    if (!/^\d{1,15}$/.test(text)) return `${column} must be a non-negative integer, not ${JSON.stringify(text)}`;
    numbers[column] = Number(text);
  }
  return {
    visitors: numbers.visitors!,
    // Entry pages count their visits as entrances, exit pages as exits.
    visits: numbers.visits! || numbers.entrances! || numbers.exits!,
    pageviews: numbers.pageviews!,
    bounces: numbers.bounces!,
    duration_s: numbers.visit_duration!,
    events: numbers.events!,
  };
}

/** A table's rows, checked; `line` is the line of that entry (its header is line 1). */
async function* readTable(name: string, table: (typeof tables)[string], input: NodeJS.ReadableStream): AsyncGenerator<AggregateRow> {
  for await (const record of readCsvRecords(input, table.columns)) {
    if ('error' in record) {
      yield { line: record.line, file: name, error: record.error };
      continue;
    }
    const row = record.values;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(row.date!) || Number.isNaN(Date.parse(`${row.date}T00:00:00Z`))) {
      yield { line: record.line, file: name, error: `date must be YYYY-MM-DD, not ${JSON.stringify(row.date)}` };
      continue;
    }
    const counts = table.check?.(row) ?? countsOf(row);
    if (typeof counts === 'string') {
      yield { line: record.line, file: name, error: counts };
      continue;
    }
    yield { line: record.line, file: name, figures: table.figures(row, counts).map(([dimension, value, figures]) => ({ day: row.date!, dimension, value, ...figures })) };
  }
}

/** Every row of every table of the zip, in the zip's order; an entry that is not one of Plausible's tables is an error. */
export async function* readPlausibleZip(input: NodeJS.ReadableStream, _options: ReaderOptions): AsyncGenerator<AggregateRow> {
  let entries = 0;
  for await (const entry of readZipEntries(input)) {
    if (entry.name.endsWith('/')) {
      entry.stream.resume();
      continue;
    }
    entries++;
    const match = fileName.exec(entry.name);
    const table = match ? tables[match[1]!] : undefined;
    if (!table) {
      entry.stream.resume();
      yield { line: 0, file: entry.name, error: 'is not one of Plausible\'s imported_{table}_{YYYYMMDD}_{YYYYMMDD}.csv files' };
      continue;
    }
    yield* readTable(entry.name, table, entry.stream);
  }
  if (entries === 0) yield { line: 0, file: '', error: 'the zip holds no file' };
}
