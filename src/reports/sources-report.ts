// GET /sites/:siteId/reports/sources-v2: acquisition sources of visits (their first event's), ranked by visits.
import type { AppContext } from '../context.ts';
import type { SourcesAnswer } from './answers.ts';
import { Dim } from '../vocabulary/dimensions.ts';
import { ratio } from '../reading/meta.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { field } from '../rollup-format/counter-shard.ts';
import type { ReportScope } from '../reading/scope.ts';
import { rankByVisits } from './visits-ranking.ts';

export function sourcesReport(context: AppContext, scope: ReportScope, params: CommonParams, limit: number, caughtUp: boolean): SourcesAnswer {
  return rankByVisits(context, { scope, params, limit, caughtUp, dim: Dim.source, measures: ['visitors', 'visits', 'pageviews', 'bounce_rate'] }, ({ key, totals: { counters } }, visitors) => ({
    source: key,
    visitors,
    visits: counters[field.visits]!,
    pageviews: counters[field.pageviews]!,
    bounce_rate: ratio(counters[field.bounces]!, counters[field.visits]!),
  }));
}
