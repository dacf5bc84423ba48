// The filters a question can carry and its range of days: the words the report parameters, the projector and the
// read model share (CONTRACT section 5).
import type { GoalFilter } from './goal-rule.ts';

/** The seven list filters and the source filter (CONTRACT section 5), as applied. */
export interface ReportFilters {
  source?: string[];
  device?: string[];
  browser?: string[];
  os?: string[];
  country?: string[];
  region?: string[];
  city?: string[];
  path?: string[];
  /** Only visits that converted on this goal (goal=<id>, CONTRACT section 10): the raw events answer it. */
  goal?: GoalFilter;
}

/** The visit filters and the event column each one tests (the stored events and visits name them alike). */
export const visitFilterColumns = {
  source: 'source',
  device: 'device_type',
  browser: 'browser',
  os: 'os',
  country: 'country',
  region: 'region',
  city: 'city',
} as const;

/** Every filter and its column: the visit filters and path. */
export const filterColumns = { ...visitFilterColumns, path: 'path' } as const;

/** An inclusive range of UTC days (day numbers since the epoch). */
export interface ReportRange {
  fromDay: number;
  toDay: number;
}

/** The longest range a report takes, in days. */
export const maxRangeDays = 367;
/** Values one list filter takes at most. */
export const maxFilterValues = 20;

export const listFilterNames = ['device', 'browser', 'os', 'country', 'region', 'city', 'path'] as const;
