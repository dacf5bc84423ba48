// A window of a site's kept events in time order (ts, then seq), read one row at a time: the raw fallback over a large
// range cuts visits as the rows go by instead of holding every row (raw-visits.ts, streamRawVisits). The index on
// (site_id, ts) ends with the rowid (seq), so the order costs no sort. Same columns and conditions as
// listWindowEvents (event-store/queries/raw-window-events.ts), and a count of the window to choose between the two.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';
import { rawEventColumns, type RawEventRow, type WindowParams } from '../../../event-store/queries/raw-window-events.ts';

const kept = 'is_bot = 0 AND (is_internal = 0 OR :with_internal = 1) AND seq <= :max_seq';

const statements = preparedOnce((db) => ({
  inOrder: db.prepare<WindowParams, RawEventRow>(
    `SELECT ${rawEventColumns} FROM events INDEXED BY events_by_site_ts
     WHERE site_id = :site_id AND ts >= :start_ms AND ts < :end_ms AND ${kept} ORDER BY ts, seq`,
  ),
  count: db.prepare<{ site_id: string; start_ms: number; end_ms: number }, number>(
    'SELECT count(*) FROM events INDEXED BY events_by_site_ts WHERE site_id = :site_id AND ts >= :start_ms AND ts < :end_ms',
  ).pluck(),
}));

/** The window's rows, oldest first; the connection runs no other statement until the iteration ends. */
export function iterateWindowEvents(db: Db, params: WindowParams): IterableIterator<RawEventRow> {
  return statements(db).inOrder.iterate(params);
}

/** Every event of the site in the window (bots and internal traffic too): an upper bound of what a load holds. */
export function countWindowEvents(db: Db, params: { site_id: string; start_ms: number; end_ms: number }): number {
  return statements(db).count.get(params)!;
}
