// GET /v1/sites/:siteId/reports/dashboard-v2: a dashboard's panels in one request and one read (issue 29: a filter
// click on a 10M-event site under 1.5 s). Each panel equals its own endpoint's answer for the same parameters; the
// rankings, the summary's series and the goals are asked of the read model together (DashboardQuestions), so a
// filter no rollup carries costs one scan of the range's raw visits for all of them instead of one per panel (the
// summary's comparison, another range, is read on its own).
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { Figures, RankingFigures } from '../read-model/report-questions.ts';
import type { CommonParams } from '../reading/common-params.ts';
import type { ReportScope } from '../reading/scope.ts';
import { buildMeta } from '../reading/meta.ts';
import type { DashboardAnswer, SummaryAnswer } from './answers.ts';
import { breakdownRanking, breakdownRow } from './breakdown-report.ts';
import { campaignRow, campaignsRanking } from './campaigns-report.ts';
import { goalsAnswer } from './goals-report.ts';
import { listSiteGoals } from '../goals/site-goals.ts';
import { firstPagesAnswer, pagesAsk } from './pages-report.ts';
import { sourceRow, sourcesRanking } from './sources-report.ts';
import { selectionOf, summaryWithComparison, type SummaryOptions } from './summary-report.ts';
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

/** The first `rows` of a ranking's answer: what the same ranking asked with that limit answers (rows in one order). */
function firstRows<Answer extends RankingFigures>(answer: Answer, rows: number): Answer {
  return { ...answer, rows: answer.rows.slice(0, rows), more: answer.more || answer.rows.length > rows };
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
  // The countries are ranked once, as many as the larger of the table and the map: both are its first rows (a
  // ranking's rows are in one order, visits then value, whatever its limit), so the table is exactly breakdown-v2's.
  const countryRows = Math.max(limit, options.mapLimit);
  const rankings = {
    sources: sourcesRanking(scope, params, limit, options.grouped, sinceMs),
    campaigns: campaignsRanking(scope, params, limit, sinceMs),
    countries: breakdownRanking(scope, params, 'country', limit, sinceMs),
    devices: breakdownRanking(scope, params, 'device', limit, sinceMs),
    browsers: breakdownRanking(scope, params, 'browser', limit, sinceMs),
    operating_systems: breakdownRanking(scope, params, 'os', limit, sinceMs),
    map: breakdownRanking(scope, params, 'country', options.mapLimit, sinceMs),
  } satisfies Record<string, VisitsRanking>;
  const asked = ['sources', 'campaigns', 'devices', 'browsers', 'operating_systems'] as const;
  const goals = listSiteGoals(context.db, scope.site.id);
  // One question for every panel but the comparison: a filter no rollup carries reads the range's raw events once.
  const batch = await readModel.dashboard({
    ...selectionOf(scope, params),
    sinceMs,
    rankings: [
      pagesAsk(pagesOptions),
      visitsRankingAsk(breakdownRanking(scope, params, 'country', countryRows, sinceMs)),
      ...asked.map((name) => visitsRankingAsk(rankings[name])),
    ],
    interval: options.summary.interval,
    goals: goals.map((goal) => goal.filter),
  });
  const answerOf = (index: number) => ({ ...batch.rankings[index]!, freshness: batch.freshness });
  const pages = await firstPagesAnswer(context, readModel, scope, params, pagesOptions, answerOf(0));
  const summary = await summaryWithComparison(context, readModel, scope, params, options.summary, batch.series, annotations);
  const countries = answerOf(1);
  const ranked = <Row>(name: keyof typeof rankings, toRow: (key: string, figures: Figures) => Row) => {
    const answer = name === 'countries' || name === 'map' ? firstRows(countries, rankings[name].limit) : answerOf(asked.indexOf(name as (typeof asked)[number]) + 2);
    return visitsRankingAnswer(context, rankings[name], answer, toRow);
  };
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
    goals: goalsAnswer(context, scope, params, goals, batch.goals),
    countries: ranked('countries', breakdownRow),
    devices: ranked('devices', breakdownRow),
    browsers: ranked('browsers', breakdownRow),
    operating_systems: ranked('operating_systems', breakdownRow),
    map: ranked('map', breakdownRow),
  };
  return { meta, data };
}
