// GoatCounter's CSV export, version 2 (header "2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,
// Referrer scheme,Screen size,Location,FirstVisit,Date"): one row per pageview or event. Its rows carry no id: an
// event's id is the UUID v5 of the row's text. Session becomes anon_id; Bot other than 0 marks a bot.
import { orNull, type ReaderOptions, type SourceRow, toEventType } from '../import-formats.ts';
import { uuidV5 } from '../uuid-v5.ts';
import { readCsvRecords } from './csv-records.ts';
import { sourceTimeToIso } from './source-time.ts';
import { toOsName } from './umami-csv.ts';

export const goatCounterColumns = ['Path', 'Title', 'Event', 'UserAgent', 'Browser', 'System', 'Session', 'Bot', 'Referrer', 'Referrer scheme', 'Screen size', 'Location', 'FirstVisit', 'Date'] as const;

/** GoatCounter records paths only: its pages get this host (reports group by path; docs/import-export.md). */
export const goatCounterHost = 'goatcounter.invalid';

/** The header's first name carries the format's version ("2Path"): only version 2 is read. */
function headerOf(names: string[]): string[] {
  const [first = '', ...rest] = names;
  return [first === '2Path' ? 'Path' : first, ...rest];
}

/** "Chrome 120" → "Chrome": GoatCounter stores the name and version together. */
const withoutVersion = (text: string): string => text.replace(/\s+[\d.]+$/, '');

export async function* readGoatCounterCsv(input: NodeJS.ReadableStream, options: ReaderOptions): AsyncGenerator<SourceRow> {
  let checkedVersion = false;
  for await (const record of readCsvRecords(input, goatCounterColumns, (names) => {
    checkedVersion = names[0] === '2Path';
    return headerOf(names);
  })) {
    if (!checkedVersion) {
      yield { line: 1, error: 'the header must start with 2Path (GoatCounter export format version 2)' };
      return;
    }
    if ('error' in record) {
      yield record;
      continue;
    }
    const row = record.values;
    const ts = sourceTimeToIso(row.Date!);
    if (!ts) {
      yield { line: record.line, error: `Date must be an RFC 3339 date and time, not ${JSON.stringify(row.Date)}` };
      continue;
    }
    if (!row.Session) {
      yield { line: record.line, error: 'Session must not be empty' };
      continue;
    }
    const event = row.Event === 'true' || row.Event === '1';
    const path = row.Path!.startsWith('/') ? row.Path! : `/${row.Path}`;
    const scheme = row['Referrer scheme'];
    const campaign = scheme === 'c' && row.Referrer ? `?utm_source=${encodeURIComponent(row.Referrer)}` : '';
    const referrer = scheme === 'h' && row.Referrer ? (/^https?:\/\//.test(row.Referrer) ? row.Referrer : `https://${row.Referrer}`) : null;
    const screen = /^(\d{1,6}),(\d{1,6})/.exec(row['Screen size'] ?? '');
    const context: Record<string, unknown> = {};
    if (row.Title) context.title = row.Title;
    if (screen) context.screen = { w: Number(screen[1]), h: Number(screen[2]) };
    const named = (scheme === 'g' || scheme === 'o') && row.Referrer ? { referrer_name: row.Referrer } : undefined;
    const [country = '', subdivision = ''] = (row.Location ?? '').split('-');
    const wire: Record<string, unknown> = {
      // The row's fields, not the line number: the same row at another place in a later export is the same event.
      id: uuidV5(`goatcounter:${options.siteId}:${goatCounterColumns.map((name) => row[name]).join('\u0000')}`),
      site_id: options.siteId,
      anon_id: row.Session,
      ts,
      type: event ? toEventType(row.Path!) : 'pageview',
      url: event ? null : `https://${goatCounterHost}${path}${campaign}`,
      referrer,
      ...(Object.keys(context).length > 0 && { context }),
      ...(named && { props: named }),
    };
    yield {
      line: record.line,
      event: {
        wire,
        facts: {
          browser: row.Browser ? withoutVersion(row.Browser) : null,
          os: row.System ? toOsName(withoutVersion(row.System)) : null,
          device_type: null,
          is_bot: row.Bot !== '' && row.Bot !== '0',
          country: orNull(country.toUpperCase()),
          region: orNull(row.Location && subdivision ? row.Location : null),
          city: null,
        },
      },
    };
  }
}
