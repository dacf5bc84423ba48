// GET /v1/sites/:siteId/reports/dashboard-v2: a dashboard's panels in one request and one read (issue 29: a filter
// click on a 10M-event site under 1.5 s). Each panel equals its own endpoint's answer for the same parameters; the
// rankings are asked of the read model together (ReportQuestions.rankings), so a filter no rollup carries costs one
// scan of the range's raw visits for all of them instead of one per panel.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { Figures } from '../read-model/report-questions.ts';
import type { CommonParams } from '../reading/common-params.ts';
import type { ReportScope } from '../reading/scope.ts';
import { buildMeta } from '../reading/meta.ts';
import type { DashboardAnswer, SummaryAnswer } from './answers.ts';
import { breakdownRanking, breakdownRow } from './breakdown-report.ts';
import { campaignRow, campaignsRanking } from './campaigns-report.ts';
import { goalsReport } from './goals-report.ts';
import { firstPagesAnswer, pagesAsk } from './pages-report.ts';
import { sourceRow, sourcesRanking } from './sources-report.ts';
import { selectionOf, summaryReport, type SummaryOptions } from './summary-report.ts';
import { type VisitsRanking, visitsRankingAnswer, visitsRankingAsk } from './visits-ranking.ts';

export interface DashboardOptions {
  summary: SummaryOptions;
  /** Rows of each table (pages, sources, campaigns, the four breakdowns). */
  limit: number;
  /** Rows of the map's countries. */
  mapLimit: number;
  /** Sources by their group (sources-v2 grouped=true). */
  grouped: boolean;
}

/** `annotations`: those of the range the reader sees (summary-v2's meta.annotations). */
export async function dashboardReport(
  context: AppContext,
  readModel: ReadModel,
  scope: ReportScope,
  params: CommonParams,
  options: DashboardOptions,
  annotations: SummaryAnswer['meta']['annotations'],
): Promise<DashboardAnswer> {
  const { limit } = options;
  const sinceMs = options.summary.sinceMs;
  const pagesOptions = { includeParams: false, limit, cursor: undefined, sinceMs };
  const rankings = {
    sources: sourcesRanking(scope, params, limit, options.grouped, sinceMs),
    campaigns: campaignsRanking(scope, params, limit, sinceMs),
    countries: breakdownRanking(scope, params, 'country', limit, sinceMs),
    devices: breakdownRanking(scope, params, 'device', limit, sinceMs),
    browsers: breakdownRanking(scope, params, 'browser', limit, sinceMs),
    operating_systems: breakdownRanking(scope, params, 'os', limit, sinceMs),
    map: breakdownRanking(scope, params, 'country', options.mapLimit, sinceMs),
  } satisfies Record<string, VisitsRanking>;
  const names = Object.keys(rankings) as (keyof typeof rankings)[];
  const batch = await readModel.rankings({
    ...selectionOf(scope, params),
    sinceMs,
    rankings: [pagesAsk(pagesOptions), ...names.map((name) => visitsRankingAsk(rankings[name]))],
  });
  const answerOf = (index: number) => ({ ...batch.rankings[index]!, freshness: batch.freshness });
  const pages = await firstPagesAnswer(context, readModel, scope, params, pagesOptions, answerOf(0));
  const summary = await summaryReport(context, readModel, scope, params, options.summary, annotations);
  const goals = await goalsReport(context, readModel, scope, params, sinceMs);
  const ranked = <Row>(name: (typeof names)[number], toRow: (key: string, figures: Figures) => Row) =>
    visitsRankingAnswer(context, rankings[name], answerOf(names.indexOf(name) + 1), toRow);
  const meta = buildMeta({
    scope,
    params,
    measures: {},
    freshness: batch.freshness,
    caughtUp: batch.freshness.caughtUp,
    computedFrom: batch.computedFrom,
    truncated: false,
    nextCursor: null,
    limit,
    now: context.clock.now(),
  });
  const data = {
    summary,
    pages,
    sources: ranked('sources', sourceRow),
    campaigns: ranked('campaigns', campaignRow),
    goals,
    countries: ranked('countries', breakdownRow),
    devices: ranked('devices', breakdownRow),
    browsers: ranked('browsers', breakdownRow),
    operating_systems: ranked('operating_systems', breakdownRow),
    map: ranked('map', breakdownRow),
  };
  return { meta, data };
}
