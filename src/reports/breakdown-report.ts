// GET /v1/sites/:siteId/reports/breakdown-v2?by=: visits by one visit dimension (device, browser, os, country,
// region, city: the visit's first event's value), ranked by visits, as sources-v2 ranks sources. The dashboard's
// countries, devices, browsers and OS tables.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { BreakdownAnswer } from './answers.ts';
import { ratio } from '../reading/meta.ts';
import type { CommonParams, QueryValues } from '../reading/common-params.ts';
import { single } from '../reading/common-params.ts';
import { reportErrors } from '../reading/common-param-errors.ts';
import type { ReportScope } from '../reading/scope.ts';
import { rankByVisits, type VisitsRanking } from './visits-ranking.ts';
import type { Figures } from '../read-model/report-questions.ts';

export const breakdownDimensions = ['device', 'browser', 'os', 'country', 'region', 'city'] as const;
export type BreakdownDimension = (typeof breakdownDimensions)[number];

/** `by`: required, one of the six visit dimensions (400 invalid_param otherwise). */
export function parseBreakdownDimension(query: QueryValues): BreakdownDimension {
  const by = single(query, 'by');
  if (by === undefined || !(breakdownDimensions as readonly string[]).includes(by)) throw reportErrors.invalidParam('by', `must be one of ${breakdownDimensions.join(', ')}`);
  return by as BreakdownDimension;
}

export function breakdownRanking(scope: ReportScope, params: CommonParams, by: BreakdownDimension, limit: number, sinceMs?: number): VisitsRanking {
  return { scope, params, limit, by, measures: ['visitors', 'visits', 'pageviews', 'bounce_rate'], sinceMs };
}

export function breakdownRow(key: string, figures: Figures) {
  return { value: key, visitors: figures.visitors, visits: figures.visits, pageviews: figures.pageviews, bounce_rate: ratio(figures.bounces, figures.visits) };
}

export function breakdownReport(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams, by: BreakdownDimension, limit: number, sinceMs?: number): Promise<BreakdownAnswer> {
  return rankByVisits(context, readModel, breakdownRanking(scope, params, by, limit, sinceMs), breakdownRow);
}
