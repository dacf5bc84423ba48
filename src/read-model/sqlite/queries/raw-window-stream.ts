// A window of a site's kept events in time order (ts, then seq), read one row at a time: the raw fallback over a large
// range cuts visits as the rows go by instead of holding every row (raw-visits.ts, streamRawVisits). The index on
// (site_id, ts) ends with the rowid (seq), so the order costs no sort. Same conditions as listWindowEvents
// (event-store/queries/raw-window-events.ts), and a count of the window to choose between the two.
//
// Cheaper rows: anon_id and query are virtual columns parsed from the raw JSON on every read, which took most of the
// scan (a month of the 10M site: about 8 of 12 CPU seconds). So the visitor is read as its number (event_visitors,
// joined by rowid, as funnels read it) and anon_id only where a number is missing or the row is within 30 minutes of
// the window's edges (where a visit may have to be extended by its anon_id); query only when a grouping needs it.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';
import type { RawEventRow, WindowParams } from '../../../event-store/queries/raw-window-events.ts';

/** A row of the stream: anon_id null where `vid` stands for it, query null unless asked for. */
export type StreamedEventRow = Omit<RawEventRow, 'anon_id'> & { anon_id: string | null; vid: number | null };

export interface StreamParams extends WindowParams {
  /** Rows before this time or from this one on carry their anon_id whatever their number (the window's edges). */
  inner_start_ms: number;
  inner_end_ms: number;
}

const kept = 'e.is_bot = 0 AND (e.is_internal = 0 OR :with_internal = 1) AND e.seq <= :max_seq';
const columns = (query: string) => `e.seq, e.site_id, ev.vid,
  CASE WHEN ev.vid IS NULL OR e.ts < :inner_start_ms OR e.ts >= :inner_end_ms THEN e.anon_id END AS anon_id,
  e.is_internal, e.ts, e.type, e.path, ${query} AS query, e.source, e.utm_source, e.utm_medium, e.utm_campaign,
  e.device_type, e.browser, e.os, e.country, e.region, e.city, e.revenue_minor, e.revenue_currency`;
const window = `FROM events e INDEXED BY events_by_site_ts LEFT JOIN event_visitors ev ON ev.seq = e.seq
  WHERE e.site_id = :site_id AND e.ts >= :start_ms AND e.ts < :end_ms AND ${kept} ORDER BY e.ts, e.seq`;

const statements = preparedOnce((db) => ({
  withQuery: db.prepare<StreamParams, StreamedEventRow>(`SELECT ${columns('e.query')} ${window}`),
  withoutQuery: db.prepare<StreamParams, StreamedEventRow>(`SELECT ${columns('NULL')} ${window}`),
  count: db.prepare<{ site_id: string; start_ms: number; end_ms: number }, number>(
    'SELECT count(*) FROM events INDEXED BY events_by_site_ts WHERE site_id = :site_id AND ts >= :start_ms AND ts < :end_ms',
  ).pluck(),
}));

/** The window's rows, oldest first; the connection runs no other statement until the iteration ends. */
export function iterateWindowEvents(db: Db, params: StreamParams, withQuery: boolean): IterableIterator<StreamedEventRow> {
  return (withQuery ? statements(db).withQuery : statements(db).withoutQuery).iterate(params);
}

/** Every event of the site in the window (bots and internal traffic too): an upper bound of what a load holds. */
export function countWindowEvents(db: Db, params: { site_id: string; start_ms: number; end_ms: number }): number {
  return statements(db).count.get(params)!;
}
