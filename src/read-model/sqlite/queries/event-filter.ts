// The WHERE clause shared by the date-bounded event reads (list, overview, activity; the table is aliased `e`): no
// bots, internal traffic only when asked, the path filter on the event's own path, and the visit filters (source,
// device, browser, os, country, region, city) on the event's visit, whose values are its first event's, exactly as
// the V2 reports apply them. Lists are bound as JSON arrays, so the SQL text never depends on the input.
import type { ReportFilters } from '../../../vocabulary/report-filters.ts';

export interface EventFilterParams {
  /** 1 keeps internal traffic, 0 leaves it out. */
  with_internal: 0 | 1;
  /** 1 when any visit filter is set (the visit lookup is skipped otherwise). */
  visit_filtered: 0 | 1;
  /** Each a JSON array of the accepted values, or null for no filter. */
  path: string | null;
  source: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
}

export const visitFilterNames = ['source', 'device', 'browser', 'os', 'country', 'region', 'city'] as const;

const isIn = (column: string, parameter: string) => `(:${parameter} IS NULL OR ${column} IN (SELECT value FROM json_each(:${parameter})))`;

// An event's visit: the visitor's (same site, anon_id and internal flag) latest visit starting at or before it.
// Visits are disjoint, so that one holds the event (end_ts is checked all the same).
// With a visit filter, only events the projector has reached (seq <= its position): their visits are derived, so the
// answer is as of that position like a report's, never a mix of projected and unprojected visits.
export const eventFilterSql = `e.is_bot = 0 AND (e.is_internal = 0 OR :with_internal = 1) AND ${isIn('e.path', 'path')}
  AND (:visit_filtered = 0 OR e.seq <= (SELECT position FROM projector_state WHERE id = 1))
  AND (:visit_filtered = 0 OR EXISTS (
    SELECT 1 FROM sessions s
    WHERE s.id = (
        SELECT v.id FROM sessions v
        WHERE v.site_id = e.site_id AND v.anon_id = e.anon_id AND v.is_internal = e.is_internal AND v.start_ts <= e.ts
        ORDER BY v.start_ts DESC LIMIT 1)
      AND s.end_ts >= e.ts
      AND ${isIn('s.source', 'source')} AND ${isIn('s.device_type', 'device')} AND ${isIn('s.browser', 'browser')}
      AND ${isIn('s.os', 'os')} AND ${isIn('s.country', 'country')} AND ${isIn('s.region', 'region')}
      AND ${isIn('s.city', 'city')}))`;

/** The bound values of `eventFilterSql` for parsed filters. */
export function toEventFilterParams(filters: ReportFilters, withInternal: boolean): EventFilterParams {
  const list = (values: string[] | undefined) => (values ? JSON.stringify(values) : null);
  return {
    with_internal: withInternal ? 1 : 0,
    visit_filtered: visitFilterNames.some((name) => filters[name] !== undefined) ? 1 : 0,
    path: list(filters.path),
    source: list(filters.source),
    device: list(filters.device),
    browser: list(filters.browser),
    os: list(filters.os),
    country: list(filters.country),
    region: list(filters.region),
    city: list(filters.city),
  };
}
