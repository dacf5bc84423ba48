// One site's events that have a path, counted by path and time bucket over a window (activity-v2).
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';
import { type EventFilterParams, eventFilterSql } from './event-filter.ts';

export interface PathBucketCountsParams extends EventFilterParams {
  site_id: string;
  /** Where bucket 0 starts (the window's start). */
  window_start_ms: number;
  /** Event time bounds, epoch ms: start_ms <= ts < end_ms (the window, or less of it when a range clips it). */
  start_ms: number;
  end_ms: number;
  bucket_ms: number;
}

export interface PathBucketCountRow {
  path: string;
  /** (ts − window_start_ms) / bucket_ms, rounded down: 0 is the oldest bucket. */
  bucket: number;
  count: number;
}

const statements = preparedOnce((db) => ({
  // CAST: a bound JS number is a REAL, so the division would not round down by itself (ts >= start_ms >=
  // window_start_ms: truncation is flooring).
  counts: db.prepare<PathBucketCountsParams, PathBucketCountRow>(
    `SELECT e.path, CAST((e.ts - :window_start_ms) / :bucket_ms AS INTEGER) AS bucket, count(*) AS count FROM events e
     WHERE e.site_id = :site_id AND e.ts >= :start_ms AND e.ts < :end_ms AND e.path IS NOT NULL AND ${eventFilterSql}
     GROUP BY e.path, bucket`,
  ),
}));

export function countPathBuckets(db: Db, params: PathBucketCountsParams): PathBucketCountRow[] {
  return statements(db).counts.all(params);
}
