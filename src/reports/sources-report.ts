// GET /sites/:siteId/reports/sources-v2: acquisition sources of visits (their first event's), ranked by visits.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { ratio } from '../reading/meta.ts';
import type { ReportScope } from '../reading/scope.ts';
import type { Figures } from '../read-model/report-questions.ts';
import type { SourcesAnswer } from './answers.ts';
import { rankByVisits, type VisitsRanking } from './visits-ranking.ts';

/** grouped: one row per source group (src/read-model/source-groups.ts, docs/reports.md "Grouped sources"). */
export function sourcesRanking(scope: ReportScope, params: CommonParams, limit: number, grouped = false, sinceMs?: number): VisitsRanking {
  return { scope, params, limit, by: 'source', groupSources: grouped, measures: ['visitors', 'visits', 'pageviews', 'bounce_rate'], sinceMs };
}

export function sourceRow(key: string, figures: Figures) {
  return { source: key, visitors: figures.visitors, visits: figures.visits, pageviews: figures.pageviews, bounce_rate: ratio(figures.bounces, figures.visits) };
}

export function sourcesReport(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams, limit: number, grouped = false, sinceMs?: number): Promise<SourcesAnswer> {
  return rankByVisits(context, readModel, sourcesRanking(scope, params, limit, grouped, sinceMs), sourceRow);
}
