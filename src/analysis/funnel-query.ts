// The funnel query object (CONTRACT section 6): its valibot schema and the checks past its shape (dates, the range,
// the window, filter list sizes), which refuse with the same codes as the reports' parameters, pointing into the
// body. The parsed query is normalised (defaults applied, filter lists deduplicated), so equal queries hash equally.
import * as v from 'valibot';
import { ApiError } from '../http/errors.ts';
import type { FunnelBreakdown } from '../read-model/funnel-questions.ts';
import { maxFilterValues, maxRangeDays, type ReportFilters, type ReportRange } from '../vocabulary/report-filters.ts';
import { dayMs, parseDateText } from '../vocabulary/periods.ts';

export const minSteps = 2;
export const maxSteps = 12;
/** The longest completion window: 90 days. */
export const maxWindowMs = 90 * dayMs;
const maxValueLength = 512;

export const windowUnits = { minutes: 60_000, hours: 3_600_000, days: dayMs } as const;
export const breakdownDimensions = ['device', 'browser', 'os', 'country', 'source', 'utm_campaign'] as const satisfies readonly FunnelBreakdown[];
export type BreakdownDimension = (typeof breakdownDimensions)[number];
const listFilterNames = ['device', 'browser', 'os', 'country', 'region', 'city', 'path'] as const;

const Text = (max: number) => v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));
const PropValue = v.union([v.string(), v.number(), v.boolean(), v.null()], 'must be a string, number, boolean or null');
const FilterList = v.array(Text(maxValueLength), 'must be an array of strings');

export const FunnelStepBody = v.strictObject({
  type: Text(128),
  path: v.optional(Text(maxValueLength)),
  props: v.optional(
    v.pipe(
      v.record(Text(128), PropValue, 'must be an object of scalar values'),
      v.check((props) => Object.keys(props).length <= 20, 'must have at most 20 properties'),
    ),
  ),
  label: v.optional(Text(128)),
});

export const FunnelQueryBody = v.strictObject({
  site_id: v.optional(Text(64)),
  scope: v.optional(v.literal('all-sites', 'must be all-sites')),
  from: v.string('must be a date as YYYY-MM-DD'),
  to: v.string('must be a date as YYYY-MM-DD'),
  steps: v.pipe(
    v.array(FunnelStepBody, 'must be an array of steps'),
    v.minLength(minSteps, `must have at least ${minSteps} steps`),
    v.maxLength(maxSteps, `must have at most ${maxSteps} steps`),
  ),
  window: v.strictObject({
    value: v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1')),
    unit: v.picklist(['minutes', 'hours', 'days'], 'must be minutes, hours or days'),
  }),
  date_mode: v.optional(v.picklist(['first_step', 'all_steps'], 'must be first_step or all_steps'), 'first_step'),
  source: v.optional(Text(maxValueLength)),
  device: v.optional(FilterList),
  browser: v.optional(FilterList),
  os: v.optional(FilterList),
  country: v.optional(FilterList),
  region: v.optional(FilterList),
  city: v.optional(FilterList),
  path: v.optional(FilterList),
  internal: v.optional(v.picklist(['exclude', 'include'], 'must be exclude or include'), 'exclude'),
  breakdown: v.optional(v.picklist(breakdownDimensions, `must be one of ${breakdownDimensions.join(', ')}`)),
});
export type FunnelQueryBody = v.InferOutput<typeof FunnelQueryBody>;

export interface FunnelStep {
  type: string;
  /** Exact path, or a prefix when `prefix` (the query's path ended in *). */
  path: string | null;
  prefix: boolean;
  props: Record<string, string | number | boolean | null> | null;
  label: string;
}

export interface FunnelQuery {
  /** The site of a single-site query; null with scope all-sites. */
  siteId: string | null;
  from: string;
  to: string;
  range: ReportRange;
  steps: FunnelStep[];
  window: { value: number; unit: keyof typeof windowUnits };
  windowMs: number;
  dateMode: 'first_step' | 'all_steps';
  filters: ReportFilters;
  withInternal: boolean;
  breakdown: BreakdownDimension | null;
}

const refuse = (code: string, message: string, path: string) => new ApiError(400, code, message, [{ path, message }]);

/**
 * The checks valibot's shape cannot make, `at` being the query's pointer in the body ('' or '/query').
 * @example toFunnelQuery(parseBody(FunnelQueryBody, body), '')
 */
export function toFunnelQuery(body: FunnelQueryBody, at: string): FunnelQuery {
  if ((body.site_id === undefined) === (body.scope === undefined)) {
    throw ApiError.invalidPayload([{ path: `${at}/site_id`, message: 'give either site_id or scope: "all-sites"' }]);
  }
  const fromDay = parseDateText(body.from);
  if (fromDay === undefined) throw refuse('invalid_date_param', 'from must be a date as YYYY-MM-DD', `${at}/from`);
  const toDay = parseDateText(body.to);
  if (toDay === undefined) throw refuse('invalid_date_param', 'to must be a date as YYYY-MM-DD', `${at}/to`);
  if (fromDay > toDay) throw refuse('invalid_date_range', 'from must not be after to', `${at}/from`);
  if (toDay - fromDay + 1 > maxRangeDays) throw refuse('range_too_large', `The range may cover at most ${maxRangeDays} days`, `${at}/to`);
  const windowMs = body.window.value * windowUnits[body.window.unit];
  if (windowMs > maxWindowMs) throw ApiError.invalidPayload([{ path: `${at}/window/value`, message: 'the window may be at most 90 days' }]);
  const filters: ReportFilters = {};
  if (body.source !== undefined) filters.source = [body.source];
  for (const name of listFilterNames) {
    const values = body[name];
    if (values === undefined) continue;
    if (values.length > maxFilterValues) throw refuse('too_many_values', `${name} may list at most ${maxFilterValues} values`, `${at}/${name}`);
    if (values.length === 0) throw ApiError.invalidPayload([{ path: `${at}/${name}`, message: 'must list at least one value' }]);
    filters[name] = [...new Set(values)].sort();
  }
  return {
    siteId: body.site_id ?? null,
    from: body.from,
    to: body.to,
    range: { fromDay, toDay },
    steps: body.steps.map((step) => {
      const prefix = step.path?.endsWith('*') ?? false;
      return {
        type: step.type,
        path: step.path === undefined ? null : prefix ? step.path.slice(0, -1) : step.path,
        prefix,
        props: step.props ?? null,
        label: step.label ?? (step.path ? `${step.type} ${step.path}` : step.type),
      };
    }),
    window: body.window,
    windowMs,
    dateMode: body.date_mode,
    filters,
    withInternal: body.internal === 'include',
    breakdown: body.breakdown ?? null,
  };
}

/** What the funnel's population depends on, in a fixed order (labels are presentation and left out). */
export function canonicalQuery(workspaceId: string, query: FunnelQuery): unknown {
  const props = (step: FunnelStep) => (step.props ? Object.keys(step.props).sort().map((key) => [key, step.props![key]]) : null);
  return [
    workspaceId,
    query.siteId,
    query.from,
    query.to,
    query.steps.map((step) => [step.type, step.path, step.prefix, props(step)]),
    query.windowMs,
    query.dateMode,
    Object.keys(query.filters).sort().map((name) => [name, query.filters[name as keyof ReportFilters]]),
    query.withInternal,
    query.breakdown,
  ];
}
