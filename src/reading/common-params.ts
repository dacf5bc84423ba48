// The common report parameters (spec, "Common report parameters"; CONTRACT section 5): inclusive UTC dates,
// scope, source and the seven list filters, internal traffic, timezone and bots, limit. Refusals are structured
// 400s with stable codes (src/reports/report-errors.ts).
import { parseDateText } from '../vocabulary/periods.ts';
import { reportErrors } from './common-param-errors.ts';
import { listFilterNames, maxFilterValues, maxRangeDays, type ReportFilters, type ReportRange } from '../vocabulary/report-filters.ts';






const maxValueLength = 512;

export type QueryValues = Record<string, string | string[] | undefined>;


export interface CommonParams {
  range: ReportRange;
  from: string;
  to: string;
  allSites: boolean;
  filters: ReportFilters;
  withInternal: boolean;
  /** The segment whose filters were put in (segment=<id>), shown in meta.filters beside them. */
  segment?: string;
}

/** One string value, or undefined when absent; a repeated parameter is refused. */
export function single(query: QueryValues, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw reportErrors.invalidParam(name, 'must be given once');
  return value;
}

/** from and to: required YYYY-MM-DD, from ≤ to, at most `maxDays` inclusive days when given. */
export function parseDateRange(query: QueryValues, maxDays?: number): { range: ReportRange; from: string; to: string } {
  const days = (['from', 'to'] as const).map((name) => {
    const text = query[name];
    const day = typeof text === 'string' ? parseDateText(text) : undefined;
    if (day === undefined) throw reportErrors.invalidDateParam(name);
    return day;
  });
  const [fromDay, toDay] = days as [number, number];
  if (fromDay > toDay) throw reportErrors.invalidDateRange();
  if (maxDays !== undefined && toDay - fromDay + 1 > maxDays) throw reportErrors.rangeTooLarge(maxDays);
  return { range: { fromDay, toDay }, from: query.from as string, to: query.to as string };
}

function parseList(query: QueryValues, name: string): string[] | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  const values = text.split(',');
  if (values.length > maxFilterValues) throw reportErrors.tooManyValues(name, maxFilterValues);
  if (values.some((value) => value === '' || value.length > maxValueLength)) {
    throw reportErrors.invalidParam(name, `must be a comma-separated list of non-empty values of at most ${maxValueLength} characters`);
  }
  return [...new Set(values)];
}

/** scope, source, the list filters, internal, timezone and bots (no dates). */
export function parseFilterParams(query: QueryValues): Omit<CommonParams, 'range' | 'from' | 'to'> {
  const timezone = single(query, 'timezone');
  if (timezone !== undefined && timezone !== 'UTC') throw reportErrors.unsupportedTimezone();
  const bots = single(query, 'bots');
  if (bots !== undefined && bots !== 'exclude') throw reportErrors.unsupportedBots();
  const scope = single(query, 'scope');
  if (scope !== undefined && scope !== 'all-sites') throw reportErrors.invalidParam('scope', 'must be all-sites');
  const internal = single(query, 'internal') ?? 'exclude';
  if (internal !== 'include' && internal !== 'exclude') throw reportErrors.invalidParam('internal', 'must be include or exclude');
  const filters: ReportFilters = {};
  const source = single(query, 'source');
  if (source !== undefined) {
    if (source === '' || source.length > maxValueLength) throw reportErrors.invalidParam('source', `must be one source of 1 to ${maxValueLength} characters`);
    filters.source = [source];
  }
  for (const name of listFilterNames) {
    const values = parseList(query, name);
    if (values) filters[name] = values;
  }
  return { allSites: scope === 'all-sites', filters, withInternal: internal === 'include' };
}

/**
 * goal= and segment= are the V2 reports' (src/reports/routes.ts resolves them): an endpoint that does not take them
 * refuses them rather than answer unfiltered.
 */
export function refuseReportOnlyFilters(query: QueryValues): void {
  for (const name of ['goal', 'segment']) {
    if (query[name] !== undefined) throw reportErrors.invalidParam(name, 'is taken by the V2 reports only, not by the events endpoints yet');
  }
}

/** Every common parameter of the V2 reports and historical event ranges. */
export function parseCommonParams(query: QueryValues): CommonParams {
  return { ...parseDateRange(query, maxRangeDays), ...parseFilterParams(query) };
}

/** limit: a whole number within [1, max], with a default. */
export function parseLimit(query: QueryValues, fallback: number, max = 200): number {
  const text = single(query, 'limit');
  if (text === undefined) return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1 || Number(text) > max) throw reportErrors.invalidParam('limit', `must be a whole number from 1 to ${max}`);
  return Number(text);
}

export function parseBoolean(query: QueryValues, name: string): boolean {
  const text = single(query, name);
  if (text === undefined || text === 'false') return false;
  if (text === 'true') return true;
  throw reportErrors.invalidParam(name, 'must be true or false');
}

/** The filters as the meta reports them (lists, internal, bots). */
export function appliedFilters(params: Pick<CommonParams, 'filters' | 'withInternal' | 'segment'>): Record<string, unknown> {
  return {
    ...params.filters,
    ...(params.filters.source ? { source: params.filters.source[0] } : {}),
    // A goal filter shows as the goal's id, as it was asked for (goal=<id>).
    ...(params.filters.goal ? { goal: params.filters.goal.id } : {}),
    ...(params.segment !== undefined ? { segment: params.segment } : {}),
    internal: params.withInternal ? 'include' : 'exclude',
    bots: 'exclude',
  };
}
