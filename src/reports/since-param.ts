// `since`: a rolling window inside a report's range (the dashboard's "Last 24 hours"), a whole UTC hour of the
// range's first day. summary-v2 counts its hours from it; the ranked reports (pages, sources, campaigns, breakdowns,
// goals) count from it too, so every panel of the window counts the same 24 hours.
import { reportErrors } from '../reading/common-param-errors.ts';
import { type QueryValues, single } from '../reading/common-params.ts';
import { dayMs } from '../vocabulary/periods.ts';
import type { ReportRange } from '../vocabulary/report-filters.ts';

/** The query parameter's documentation, for every report that takes it. */
export const sinceParam = {
  name: 'since',
  description:
    'A whole UTC hour of the range\'s first day (2026-11-26T14:00:00Z): count only events from it on and visits starting from it on (a rolling "last 24 hours": yesterday to today, since the hour 23 hours before this one), from raw events',
  schema: { type: 'string' as const },
};

/**
 * The epoch ms of `since`, or undefined when absent; 400 invalid_param (`/since`) when it is not a whole UTC hour of
 * the range's first day.
 * @example parseSince({ since: '2026-11-26T14:00:00Z' }, { fromDay: 20783, toDay: 20784 }) // 1795701600000
 */
export function parseSince(query: QueryValues, range: ReportRange): number | undefined {
  const since = single(query, 'since');
  if (since === undefined) return undefined;
  const sinceMs = /^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/.test(since) ? Date.parse(since) : Number.NaN;
  if (Number.isNaN(sinceMs) || Math.floor(sinceMs / dayMs) !== range.fromDay) {
    throw reportErrors.invalidParam('since', 'must be a whole UTC hour of the range\'s first day, like 2026-11-26T14:00:00Z');
  }
  return sinceMs;
}
