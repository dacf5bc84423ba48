// One site's events of a time span in ingest order (seq) after a given seq: the rows of list-v2.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';
import { type EventRow, eventRowColumns } from '../../../event-store/queries/event-row-columns.ts';
import { type EventFilterParams, eventFilterSql } from './event-filter.ts';

export interface ListEventRowsParams extends EventFilterParams {
  site_id: string;
  after_seq: number;
  /** Event time bounds, epoch ms: start_ms <= ts < end_ms. */
  start_ms: number;
  end_ms: number;
  limit: number;
}

const statements = preparedOnce((db) => ({
  // `+e.ts` keeps the planner on (site_id, seq): the rows come in seq order and the scan stops at the limit.
  list: db.prepare<ListEventRowsParams, EventRow>(
    `SELECT ${eventRowColumns} FROM events e
     WHERE e.site_id = :site_id AND e.seq > :after_seq AND +e.ts >= :start_ms AND +e.ts < :end_ms AND ${eventFilterSql}
     ORDER BY e.seq LIMIT :limit`,
  ),
  // Newest first: the same scan backwards from before_seq (list-v2 order=newest).
  listBackwards: db.prepare<Omit<ListEventRowsParams, 'after_seq'> & { before_seq: number }, EventRow>(
    `SELECT ${eventRowColumns} FROM events e
     WHERE e.site_id = :site_id AND e.seq < :before_seq AND +e.ts >= :start_ms AND +e.ts < :end_ms AND ${eventFilterSql}
     ORDER BY e.seq DESC LIMIT :limit`,
  ),
}));

export function listEventRows(db: Db, params: ListEventRowsParams): EventRow[] {
  return statements(db).list.all(params);
}

/** One site's events of a time span before `before_seq`, newest first. */
export function listEventRowsBackwards(db: Db, params: Omit<ListEventRowsParams, 'after_seq'> & { before_seq: number }): EventRow[] {
  return statements(db).listBackwards.all(params);
}
