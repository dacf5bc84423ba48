// One site's events committed after a seq, up to a seq known to be committed, in ingest order (stream-v2).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import { type EventRow, eventRowColumns } from './list-event-rows.ts';

export interface StreamEventRowsParams {
  site_id: string;
  after_seq: number;
  upto_seq: number;
  /** 1 keeps internal traffic, 0 leaves it out. */
  with_internal: 0 | 1;
  /** Only this event type, or null for all. */
  type: string | null;
  /** Only this visitor, or null for all. */
  anon_id: string | null;
  limit: number;
}

const statements = preparedOnce((db) => ({
  rows: db.prepare<StreamEventRowsParams, EventRow>(
    `SELECT ${eventRowColumns} FROM events e
     WHERE e.site_id = :site_id AND e.seq > :after_seq AND e.seq <= :upto_seq AND e.is_bot = 0
       AND (e.is_internal = 0 OR :with_internal = 1) AND (:type IS NULL OR e.type = :type)
       AND (:anon_id IS NULL OR e.anon_id = :anon_id)
     ORDER BY e.seq LIMIT :limit`,
  ),
}));

export function listStreamEventRows(db: Db, params: StreamEventRowsParams): EventRow[] {
  return statements(db).rows.all(params);
}
