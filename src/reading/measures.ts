// One-line definitions of every measure, shown in meta.measures (and in docs/reports.md).
export const measureDefinitions = {
  visitors: 'distinct anon_ids with at least one counted event in the range (one per anon_id across the scope\'s sites)',
  visits: 'visits (runs of one anon_id\'s events with gaps under 30 minutes) that start in the range',
  pageviews: 'pageview events in the range',
  events: 'events of any type in the range',
  bounce_rate: 'visits with exactly one pageview and no other event, as a fraction of visits (4 decimals)',
  avg_visit_duration_s: 'mean of (last event time − first event time) over visits, in seconds (1 decimal)',
  views_per_visit: 'pageviews of the visits starting in the range divided by those visits (4 decimals)',
  entries: 'visits starting in the range whose first event is on the page',
  exits: 'visits starting in the range whose last pageview is on the page',
  conversions: 'purchase events in the range, in the visits of the row',
  revenue: 'revenue carried by the events of the row in the range, per currency, exact',
} as const;

export type MeasureName = keyof typeof measureDefinitions;

export function measuresOf(...names: MeasureName[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, measureDefinitions[name]]));
}

/** The visitors of a page (CONTRACT section 10): of pages-v2's rows, and of any report filtered by path. */
export const pageVisitorsDefinition =
  "distinct anon_ids with a pageview of the path in the range (a custom event on it does not count; one per anon_id across the scope's sites)";

/**
 * `measures` with visitors defined as a page's when `pageVisitors` holds (pages-v2, a path filter), in the same place.
 * @example withPageVisitors(measuresOf('visitors', 'pageviews'), params.filters.path !== undefined)
 */
export function withPageVisitors(measures: Record<string, string>, pageVisitors: boolean): Record<string, string> {
  return pageVisitors && 'visitors' in measures ? { ...measures, visitors: pageVisitorsDefinition } : measures;
}
