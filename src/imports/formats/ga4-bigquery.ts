// GA4's BigQuery export as NDJSON (bq extract --destination_format NEWLINE_DELIMITED_JSON of events_YYYYMMDD), read
// line by line. page_view becomes a pageview, any other event a custom event of its name; user_pseudo_id becomes
// anon_id, user_id user_id. Rows carry no id: an event's id is the UUID v5 of the line's text. Sessions are not taken
// from ga_session_id: the projector derives them by its 30-minute rule (docs/import-export.md).
import { createInterface } from 'node:readline';
import { orNull, type ReaderOptions, type SourceRow, toDeviceType, toEventType } from '../import-formats.ts';
import { uuidV5 } from '../uuid-v5.ts';
import { countryCodeOf } from './country-codes.ts';
import { microsToIso } from './source-time.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' && value !== '(not set)' ? value : null);

/** event_params as key → value (string_value, int_value, float_value or double_value, whichever is set). */
function paramsOf(row: Json): Map<string, string | number> {
  const params = new Map<string, string | number>();
  if (!Array.isArray(row.event_params)) return params;
  for (const param of row.event_params) {
    if (!isObject(param) || typeof param.key !== 'string' || !isObject(param.value)) continue;
    const { string_value, int_value, float_value, double_value } = param.value;
    const value = string_value ?? int_value ?? double_value ?? float_value;
    if (typeof value === 'string' || typeof value === 'number') params.set(param.key, value);
  }
  return params;
}

/** One line's row as a source row (exported for the bench's generator, which checks its rows with it). */
export function ga4RowOf(line: string, lineNumber: number, options: ReaderOptions): SourceRow {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return { line: lineNumber, error: 'is not valid JSON' };
  }
  if (!isObject(row)) return { line: lineNumber, error: 'must be a JSON object' };
  const ts = microsToIso(row.event_timestamp);
  if (!ts) return { line: lineNumber, error: 'event_timestamp must be microseconds since the epoch' };
  const name = text(row.event_name);
  if (!name) return { line: lineNumber, error: 'event_name is required' };
  const visitor = text(row.user_pseudo_id);
  if (!visitor) return { line: lineNumber, error: 'user_pseudo_id is required' };
  const params = paramsOf(row);
  const pageview = name === 'page_view';
  const location = params.get('page_location');
  const referrer = params.get('page_referrer');
  const title = params.get('page_title');
  const value = params.get('value');
  const currency = params.get('currency');
  const device = isObject(row.device) ? row.device : {};
  const webInfo = isObject(device.web_info) ? device.web_info : {};
  const geo = isObject(row.geo) ? row.geo : {};
  const wire: Json = {
    id: uuidV5(`ga4:${options.siteId}:${line}`),
    site_id: options.siteId,
    anon_id: visitor,
    ts,
    type: pageview ? 'pageview' : toEventType(name),
    url: typeof location === 'string' && location !== '' ? location : null,
    referrer: typeof referrer === 'string' && referrer !== '' ? referrer : null,
    ...(text(row.user_id) && { user_id: row.user_id }),
    ...(typeof title === 'string' && title !== '' && { context: { title } }),
    ...(name === 'purchase' && value !== undefined && typeof currency === 'string' && { revenue: { amount: String(value), currency } }),
  };
  return {
    line: lineNumber,
    event: {
      wire,
      facts: {
        browser: text(webInfo.browser) ?? text(device.browser),
        os: orNull(text(device.operating_system)),
        device_type: toDeviceType(text(device.category)),
        // GA4 filters known bots at collection: none are in its export.
        is_bot: false,
        country: countryCodeOf(text(geo.country)),
        region: text(geo.region),
        city: text(geo.city),
      },
    },
  };
}

export async function* readGa4BigQuery(input: NodeJS.ReadableStream, options: ReaderOptions): AsyncGenerator<SourceRow> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    yield ga4RowOf(line, lineNumber, options);
  }
}
