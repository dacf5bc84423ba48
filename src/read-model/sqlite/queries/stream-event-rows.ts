// One site's events committed after a seq, up to a seq known to be committed, in ingest order (stream-v2).
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';
import { type EventFilterParams, eventFilterSql } from './event-filter.ts';
import { type EventRow, eventRowColumns } from '../../../event-store/queries/event-row-columns.ts';

export interface StreamEventRowsParams extends EventFilterParams {
  site_id: string;
  after_seq: number;
  upto_seq: number;
  /** Event time bounds, epoch ms (start_ms <= ts < end_ms), or null for none. */
  start_ms: number | null;
  end_ms: number | null;
  /** Only this event type, or null for all. */
  type: string | null;
  /** Only this visitor, or null for all. */
  anon_id: string | null;
  limit: number;
}

const statements = preparedOnce((db) => ({
  // `+e.ts` keeps the planner on (site_id, seq): the rows come in seq order and the scan stops at the limit.
  rows: db.prepare<StreamEventRowsParams, EventRow>(
    `SELECT ${eventRowColumns} FROM events e
     WHERE e.site_id = :site_id AND e.seq > :after_seq AND e.seq <= :upto_seq
       AND (:start_ms IS NULL OR +e.ts >= :start_ms) AND (:end_ms IS NULL OR +e.ts < :end_ms)
       AND (:type IS NULL OR e.type = :type) AND (:anon_id IS NULL OR e.anon_id = :anon_id) AND ${eventFilterSql}
     ORDER BY e.seq LIMIT :limit`,
  ),
}));

export function listStreamEventRows(db: Db, params: StreamEventRowsParams): EventRow[] {
  return statements(db).rows.all(params);
}
