// One site's event counts by type over a time span (overview-v2).
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';
import { type EventFilterParams, eventFilterSql } from './event-filter.ts';

export interface EventTypeCountsParams extends EventFilterParams {
  site_id: string;
  start_ms: number;
  end_ms: number;
}

export interface EventTypeCountRow {
  type: string;
  count: number;
}

const statements = preparedOnce((db) => ({
  counts: db.prepare<EventTypeCountsParams, EventTypeCountRow>(
    `SELECT e.type, count(*) AS count FROM events e
     WHERE e.site_id = :site_id AND e.ts >= :start_ms AND e.ts < :end_ms AND ${eventFilterSql}
     GROUP BY e.type`,
  ),
}));

export function countEventTypes(db: Db, params: EventTypeCountsParams): EventTypeCountRow[] {
  return statements(db).counts.all(params);
}
