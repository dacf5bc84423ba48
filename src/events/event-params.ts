// The parameters of the Events v2 endpoints beyond the common report parameters (src/reading/common-params.ts): the
// activity window's end, the stream's filters and resume cursor. Refusals are the same structured 400s.
import { parseIsoTimestamp } from '../http/validate.ts';
import type { ReportFilters, ReportRange } from '../vocabulary/report-filters.ts';
import { type CommonParams, parseDateRange, parseFilterParams, type QueryValues, refuseReportOnlyFilters, single } from '../reading/common-params.ts';
import { maxRangeDays } from '../vocabulary/report-filters.ts';
import { dayMs } from '../vocabulary/periods.ts';
import { reportErrors } from '../reading/common-param-errors.ts';
import type { ReportScope } from '../reading/scope.ts';
import type { Selection } from '../read-model/questions.ts';

export const activityWindowMs = 60 * 60_000;
export const activityBucketMs = 5 * 60_000;

/** Event-time bounds of an inclusive range of UTC days: start_ms <= ts < end_ms. */
export function boundsOfRange(range: ReportRange): { start_ms: number; end_ms: number } {
  return { start_ms: range.fromDay * dayMs, end_ms: (range.toDay + 1) * dayMs };
}

/** The read model's selection of an endpoint's scope and common parameters. */
export function selectionOf(scope: ReportScope, params: Pick<CommonParams, 'range' | 'filters' | 'withInternal'>): Selection {
  return { scope, range: params.range, filters: params.filters, withInternal: params.withInternal };
}

/** from and to parsed as on the reports (both or neither; at most 367 days), or undefined when neither is given. */
function parseOptionalDateRange(query: QueryValues): Pick<CommonParams, 'range' | 'from' | 'to'> | undefined {
  if (query.from === undefined && query.to === undefined) return undefined;
  return parseDateRange(query, maxRangeDays);
}

export interface ActivityParams extends Omit<CommonParams, 'range' | 'from' | 'to'> {
  /** The window's end (exclusive), already capped to the range's end. */
  endMs: number;
  /** from/to when given: only events inside the range count. */
  dates: Pick<CommonParams, 'range' | 'from' | 'to'> | undefined;
}

/**
 * activity-v2: `end` (ISO-8601 with an offset) and every common parameter, from/to optional. The window ends at
 * `end`, default now; with from/to, at the end of `to` when that is earlier (a given `end` too), so a range in the
 * past shows its last hour rather than an empty one.
 */
export function parseActivityParams(query: QueryValues, now: number): ActivityParams {
  refuseReportOnlyFilters(query);
  const text = single(query, 'end');
  const givenEndMs = text === undefined ? now : parseIsoTimestamp(text);
  if (givenEndMs === undefined) throw reportErrors.invalidParam('end', 'must be an ISO-8601 timestamp with an offset');
  if (givenEndMs - activityWindowMs < 0) throw reportErrors.invalidParam('end', 'must be after 1970-01-01T01:00:00Z');
  const dates = parseOptionalDateRange(query);
  const endMs = dates ? Math.min(givenEndMs, boundsOfRange(dates.range).end_ms) : givenEndMs;
  return { ...parseFilterParams(query), endMs, dates };
}

const eventTypePattern = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

export interface StreamParams {
  type: string | null;
  anonId: string | null;
  withInternal: boolean;
  /** from/to when given: only events whose time is inside the range are sent. */
  range: ReportRange | undefined;
  /** source and the dimension filters, as on list-v2. */
  filters: ReportFilters;
  /** The resume cursor: Last-Event-ID when sent (a reconnecting EventSource sends it), else the cursor parameter. */
  cursor: { value: string; name: 'cursor' | 'last-event-id' } | undefined;
}

/** stream-v2: the common parameters but scope (a stream tails one site), name, anon_id and a resume cursor. */
export function parseStreamParams(query: QueryValues, lastEventId: string | null): StreamParams {
  refuseReportOnlyFilters(query);
  if (query.scope !== undefined) throw reportErrors.invalidParam('scope', 'is not a parameter of stream-v2: a stream tails one site (open one stream per site)');
  const range = parseOptionalDateRange(query)?.range;
  const { filters, withInternal } = parseFilterParams(query);
  const type = single(query, 'name') ?? null;
  if (type !== null && !eventTypePattern.test(type)) throw reportErrors.invalidParam('name', 'must be an event type (^[A-Za-z][A-Za-z0-9_.:-]{0,63}$)');
  const anonId = single(query, 'anon_id') ?? null;
  if (anonId !== null && (anonId.length < 1 || anonId.length > 128)) throw reportErrors.invalidParam('anon_id', 'must be 1 to 128 characters');
  const cursorParam = single(query, 'cursor');
  const cursor = lastEventId ? { value: lastEventId, name: 'last-event-id' as const } : cursorParam !== undefined ? { value: cursorParam, name: 'cursor' as const } : undefined;
  return { type, anonId, withInternal, range, filters, cursor };
}
