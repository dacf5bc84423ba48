// GET /sites/:siteId/reports/sources-v2: acquisition sources of visits (their first event's), ranked by visits.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { ratio } from '../reading/meta.ts';
import type { ReportScope } from '../reading/scope.ts';
import type { SourcesAnswer } from './answers.ts';
import { rankByVisits } from './visits-ranking.ts';

/** grouped: one row per source group (src/read-model/source-groups.ts, docs/reports.md "Grouped sources"). */
export function sourcesReport(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams, limit: number, grouped = false): Promise<SourcesAnswer> {
  return rankByVisits(context, readModel, { scope, params, limit, by: 'source', groupSources: grouped, measures: ['visitors', 'visits', 'pageviews', 'bounce_rate'] }, (key, figures) => ({
    source: key,
    visitors: figures.visitors,
    visits: figures.visits,
    pageviews: figures.pageviews,
    bounce_rate: ratio(figures.bounces, figures.visits),
  }));
}
