// GET /sites/:siteId/reports/summary-v2: the headline numbers of the range and a dense daily series.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { Selection } from '../read-model/questions.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { measuresOf, withPageVisitors } from '../reading/measures.ts';
import { averageSeconds, buildMeta, ratio } from '../reading/meta.ts';
import type { ReportScope } from '../reading/scope.ts';
import { toDateText } from '../vocabulary/periods.ts';
import type { SummaryAnswer } from './answers.ts';

/** The read model's selection of a V2 report's scope and common parameters. */
export function selectionOf(scope: ReportScope, params: CommonParams): Selection {
  return { scope, range: params.range, filters: params.filters, withInternal: params.withInternal };
}

export async function summaryReport(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams): Promise<SummaryAnswer> {
  const { total, days, freshness, computedFrom, imported } = await readModel.summary({ ...selectionOf(scope, params), visitors: true });
  return {
    meta: buildMeta({
      scope,
      params,
      measures: withPageVisitors(measuresOf('visitors', 'visits', 'pageviews', 'events', 'bounce_rate', 'avg_visit_duration_s', 'views_per_visit'), params.filters.path !== undefined),
      freshness,
      caughtUp: freshness.caughtUp,
      computedFrom,
      imported,
      truncated: false,
      nextCursor: null,
      limit: null,
      now: context.clock.now(),
    }),
    data: {
      visitors: total.visitors,
      visits: total.visits,
      pageviews: total.pageviews,
      events: total.events,
      bounce_rate: ratio(total.bounces, total.visits),
      avg_visit_duration_s: averageSeconds(total.durationMs, total.visits),
      views_per_visit: ratio(total.visitPageviews, total.visits),
      series: days.map((day) => ({ date: toDateText(day.day), visitors: day.visitors, visits: day.visits, pageviews: day.pageviews })),
    },
  };
}
