// The shape of an event as the writer stores it: the raw text received, plus what enrichment derived from it that
// reads filter or group by (url, referrer and props stay in raw: src/event-store/wire-fields.ts reads them).
import type { VisitAttributes } from '../vocabulary/dimensions.ts';

/** The event's own attributes include those a visit takes from its first event (src/vocabulary/dimensions.ts). */
export interface StoredEventInput extends VisitAttributes {
  site_id: string;
  id: string;
  dedup_key: number;
  type: string;
  ts: number;
  anon_id: string;
  user_id: string | null;
  path: string | null;
  query: string | null;
  is_bot: 0 | 1;
  is_internal: 0 | 1;
  revenue_minor: number | null;
  revenue_currency: string | null;
  raw: string;
  /**
   * The collector's word that reading id, anon_id and query from raw, as the table's virtual columns do, gives the
   * values above (rawReadsCanonical): the writer then does not read the new row back to check.
   */
  raw_reads_canonical?: boolean;
}

export interface StoredEvent extends StoredEventInput {
  seq: number;
  received_at: number;
}

/** The first 52 bits of a UUID as a safe integer: random for v4, time-ordered for v7, verified against the full id. */
export function dedupKeyOf(canonicalId: string): number {
  return parseInt(canonicalId.slice(0, 8) + canonicalId.slice(9, 13) + canonicalId.slice(14, 15), 16);
}

/** A stored event as the projector reads it: every column but the raw text and the dedup key. */
export type LoggedEvent = Omit<StoredEvent, 'raw' | 'dedup_key' | 'raw_reads_canonical'>;

/** How many times `part` occurs in `text` (at most 2 counted). */
function occurrences(text: string, part: string): number {
  const first = text.indexOf(part);
  if (first < 0) return 0;
  return text.indexOf(part, first + part.length) < 0 ? 1 : 2;
}

/** The query as the events table's virtual column reads it from a URL: after the first "?" unless a "#" comes before it, up to the next "#"; null when empty. */
function queryAsReadFrom(url: string | null): string | null {
  if (url === null) return null;
  const question = url.indexOf('?');
  if (question < 0) return null;
  const hash = url.indexOf('#');
  if (hash >= 0 && hash < question) return null;
  const query = hash < 0 ? url.slice(question + 1) : url.slice(question + 1, hash);
  return query === '' ? null : query;
}

/**
 * Whether the virtual columns id, anon_id and query (SQLite's json_extract over raw, which reads the first of repeated
 * keys, and only when json_valid accepts the text) surely read the canonical values the collector validated, so the
 * writer need not read the row back. Conservative: raw holds no \u escape (so a member named "id", "anon_id" or "url"
 * can only be written as itself), each of those names occurs at most once in the whole text (so the one found is the
 * top-level member both parsers read), the text is too short, or holds too few brackets, to nest past SQLite's JSON
 * depth limit (1,000), and the query read from the url equals the canonical one. Anything else is checked by reading
 * the row back (src/event-store/queries/event-rows.ts).
 * @param url the wire event's url as JSON.parse read it (null when absent or null)
 */
export function rawReadsCanonical(raw: string, url: string | null, canonical: Pick<StoredEventInput, 'query'>): boolean {
  if (raw.includes('\\u')) return false;
  if (occurrences(raw, '"id"') !== 1 || occurrences(raw, '"anon_id"') !== 1 || occurrences(raw, '"url"') !== (url === null ? 0 : 1)) return false;
  if (raw.length >= 1000 && nestingOpeners(raw) >= 1000) return false;
  return queryAsReadFrom(url) === canonical.query;
}

function nestingOpeners(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x5b || code === 0x7b) count++;
  }
  return count;
}
