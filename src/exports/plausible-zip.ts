// GET …/export?format=plausible-csv: the site's figures as Plausible's import layout, a zip of
// imported_{table}_{YYYYMMDD}_{YYYYMMDD}.csv with one row per day (and value), so a user can take the data to
// Plausible. The figures come from the read model one day and one table at a time (bounded memory whatever the range);
// the zip is written as it is read (fflate's streaming Zip).
import { Zip, ZipDeflate } from 'fflate';
import type { ReadModel } from '../read-model/read-model.ts';
import type { ReadScope } from '../read-model/questions.ts';
import type { Figures, RankDimension } from '../read-model/report-questions.ts';
import { toDateText } from '../vocabulary/periods.ts';

interface PlausibleTable {
  name: string;
  header: string;
  /** The ranking the rows come from (none: the day's totals). */
  by?: RankDimension;
  row: (date: string, key: string, figures: Figures) => (string | number)[];
}

const seconds = (figures: Figures) => Math.round(figures.durationMs / 1000);
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Plausible's tables (its CSV importer's columns), each from our figures. Campaigns are left out: Plausible keeps them
 * in rows of source × campaign, which no rollup of ours holds together (docs/import-export.md).
 */
const tables: PlausibleTable[] = [
  { name: 'visitors', header: 'date,visitors,pageviews,bounces,visits,visit_duration', row: (date, _key, f) => [date, f.visitors, f.pageviews, f.bounces, f.visits, seconds(f)] },
  { name: 'pages', header: 'date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors', by: 'path', row: (date, key, f) => [date, '', key, f.visits, f.visitors, f.pageviews, '', 0] },
  { name: 'entry_pages', header: 'date,entry_page,visitors,entrances,visit_duration,bounces,pageviews', by: 'path', row: (date, key, f) => [date, key, f.visitors, f.visits, seconds(f), f.bounces, f.visitPageviews] },
  { name: 'exit_pages', header: 'date,exit_page,visitors,visit_duration,exits,bounces,pageviews', by: 'path', row: (date, key, f) => [date, key, f.visitors, seconds(f), f.exits, f.bounces, f.visitPageviews] },
  {
    name: 'sources',
    header: 'date,source,referrer,utm_source,utm_medium,utm_campaign,utm_content,utm_term,pageviews,visitors,visits,visit_duration,bounces',
    by: 'source',
    row: (date, key, f) => [date, key === 'direct' ? 'Direct / None' : key, '', '', '', '', '', '', f.pageviews, f.visitors, f.visits, seconds(f), f.bounces],
  },
  { name: 'custom_events', header: 'date,name,link_url,path,visitors,events', by: 'type', row: (date, key, f) => [date, key, '', '', f.visitors, f.events] },
  { name: 'locations', header: 'date,country,region,city,visitors,visits,visit_duration,bounces,pageviews', by: 'country', row: (date, key, f) => [date, key, '', 0, f.visitors, f.visits, seconds(f), f.bounces, f.pageviews] },
  { name: 'devices', header: 'date,device,visitors,visits,visit_duration,bounces,pageviews', by: 'device', row: (date, key, f) => [date, capitalised(key), f.visitors, f.visits, seconds(f), f.bounces, f.pageviews] },
  { name: 'browsers', header: 'date,browser,browser_version,visitors,visits,visit_duration,bounces,pageviews', by: 'browser', row: (date, key, f) => [date, key, '', f.visitors, f.visits, seconds(f), f.bounces, f.pageviews] },
  {
    name: 'operating_systems',
    header: 'date,operating_system,operating_system_version,visitors,visits,visit_duration,bounces,pageviews',
    by: 'os',
    row: (date, key, f) => [date, key, '', f.visitors, f.visits, seconds(f), f.bounces, f.pageviews],
  },
];

function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const compact = (day: number) => toDateText(day).replaceAll('-', '');

/** One table's lines for one day, from the read model (custom events: the types other than pageview). */
async function linesOfDay(readModel: ReadModel, scope: ReadScope, day: number, table: PlausibleTable): Promise<string> {
  const selection = { scope, range: { fromDay: day, toDay: day }, filters: {}, withInternal: false };
  const date = toDateText(day);
  let rows: { key: string; figures: Figures }[];
  if (!table.by) {
    const { total } = await readModel.summary({ ...selection, visitors: true });
    rows = total.visits + total.pageviews + total.events > 0 ? [{ key: '', figures: total }] : [];
  } else {
    const order = table.by === 'type' ? 'events' : table.by === 'path' ? 'pageviews' : 'visits';
    rows = (await readModel.ranking({ ...selection, by: table.by, order, offset: 0, limit: Number.MAX_SAFE_INTEGER })).rows;
    if (table.by === 'type') rows = rows.filter((row) => row.key !== 'pageview');
  }
  return rows.map((row) => `${table.row(date, row.key, row.figures).map(csvField).join(',')}\n`).join('');
}

/**
 * The zip's bytes, a chunk at a time.
 * @example for await (const chunk of plausibleZipChunks(readModel, scope, { fromDay, toDay })) write(chunk);
 */
export async function* plausibleZipChunks(readModel: ReadModel, scope: ReadScope, range: { fromDay: number; toDay: number }): AsyncGenerator<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else chunks.push(chunk);
  });
  const encoder = new TextEncoder();
  let file: ZipDeflate | undefined;
  let fileName = '';
  for (const table of tables) {
    const name = `imported_${table.name}_${compact(range.fromDay)}_${compact(range.toDay)}.csv`;
    if (name !== fileName) {
      file?.push(new Uint8Array(0), true);
      file = new ZipDeflate(name, { level: 6 });
      zip.add(file);
      fileName = name;
      file.push(encoder.encode(`${table.header}\n`));
    }
    for (let day = range.fromDay; day <= range.toDay; day++) {
      const text = await linesOfDay(readModel, scope, day, table);
      if (text) file!.push(encoder.encode(text));
      if (failure) throw failure;
      yield* chunks.splice(0);
    }
  }
  file?.push(new Uint8Array(0), true);
  zip.end();
  if (failure) throw failure;
  yield* chunks.splice(0);
}
