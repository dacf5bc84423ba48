// GET /v1/sites/:siteId/reports/breakdown-v2?by=: visits by one visit dimension (device, browser, os, country,
// region, city: the visit's first event's value), ranked by visits, as sources-v2 ranks sources. The dashboard's
// countries, devices, browsers and OS tables.
import type { AppContext } from '../context.ts';
import type { BreakdownAnswer } from './answers.ts';
import { Dim } from '../vocabulary/dimensions.ts';
import { ratio } from '../reading/meta.ts';
import type { CommonParams, QueryValues } from '../reading/common-params.ts';
import { single } from '../reading/common-params.ts';
import { reportErrors } from '../reading/common-param-errors.ts';
import { field } from '../rollup-format/counter-shard.ts';
import type { ReportScope } from '../reading/scope.ts';
import { rankByVisits } from './visits-ranking.ts';

export const breakdownDimensions = { device: Dim.device, browser: Dim.browser, os: Dim.os, country: Dim.country, region: Dim.region, city: Dim.city } as const;
export type BreakdownDimension = keyof typeof breakdownDimensions;

/** `by`: required, one of the six visit dimensions (400 invalid_param otherwise). */
export function parseBreakdownDimension(query: QueryValues): BreakdownDimension {
  const by = single(query, 'by');
  if (by === undefined || !Object.hasOwn(breakdownDimensions, by)) throw reportErrors.invalidParam('by', `must be one of ${Object.keys(breakdownDimensions).join(', ')}`);
  return by as BreakdownDimension;
}

export function breakdownReport(context: AppContext, scope: ReportScope, params: CommonParams, by: BreakdownDimension, limit: number, caughtUp: boolean): BreakdownAnswer {
  return rankByVisits(context, { scope, params, limit, caughtUp, dim: breakdownDimensions[by], measures: ['visitors', 'visits', 'pageviews', 'bounce_rate'] }, ({ key, totals: { counters } }, visitors) => ({
    value: key,
    visitors,
    visits: counters[field.visits]!,
    pageviews: counters[field.pageviews]!,
    bounce_rate: ratio(counters[field.bounces]!, counters[field.visits]!),
  }));
}
