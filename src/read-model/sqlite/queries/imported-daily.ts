// Imported daily figures (imported_daily, written by src/imports/: Plausible's aggregates) of sites over a day range:
// per day for one dimension value, or per value summed over the range.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface ImportedDailyParams {
  /** JSON array of site ids. */
  sites: string;
  dimension: string;
  from_day: number;
  to_day: number;
}

export interface ImportedCountsRow {
  key: string | number;
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  duration_s: number;
  events: number;
}

const sums = 'sum(visitors) AS visitors, sum(visits) AS visits, sum(pageviews) AS pageviews, sum(bounces) AS bounces, sum(duration_s) AS duration_s, sum(events) AS events';
const where = 'site_id IN (SELECT value FROM json_each(:sites)) AND dimension = :dimension AND day BETWEEN :from_day AND :to_day';

const statements = preparedOnce((db) => ({
  byDay: db.prepare<ImportedDailyParams, ImportedCountsRow>(`SELECT day AS key, ${sums} FROM imported_daily WHERE ${where} GROUP BY day`),
  byValue: db.prepare<ImportedDailyParams, ImportedCountsRow>(`SELECT value AS key, ${sums} FROM imported_daily WHERE ${where} GROUP BY value`),
}));

/** Per day (key: the day number). */
export function importedCountsByDay(db: Db, params: ImportedDailyParams): ImportedCountsRow[] {
  return statements(db).byDay.all(params);
}

/** Per value (key: the value), summed over the range's days. */
export function importedCountsByValue(db: Db, params: ImportedDailyParams): ImportedCountsRow[] {
  return statements(db).byValue.all(params);
}
