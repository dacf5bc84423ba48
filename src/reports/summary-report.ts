// GET /sites/:siteId/reports/summary-v2: the headline numbers of the range and a dense daily series.
import type { AppContext } from '../context.ts';
import type { SummaryAnswer } from './answers.ts';
import { type GroupTotals, type ReportSelection } from './grouping.ts';
import { averageSeconds, buildMeta, ratio } from './meta.ts';
import { measuresOf, withPageVisitors } from './measures.ts';
import type { CommonParams } from '../http/common-params.ts';
import { toDateText } from '../projector/periods.ts';
import { groupedReport } from './read/grouped-report.ts';
import { type Counters, emptyCounters, field } from '../projector/rollup/counter-shard.ts';
import type { ReportScope } from './scope.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';

export function selectionOf(scope: ReportScope, params: CommonParams): ReportSelection {
  return { siteIds: scope.siteIds, workspaceId: scope.workspaceId, range: params.range, filters: params.filters, withInternal: params.withInternal };
}

export function daysOf(params: CommonParams): number[] {
  return Array.from({ length: params.range.toDay - params.range.fromDay + 1 }, (_, index) => params.range.fromDay + index);
}

export function countersOf(totals: GroupTotals | undefined): Counters {
  return totals?.counters ?? emptyCounters();
}

/** `caughtUp`: whether the wait for the projector passed every event committed before the request. */
export function summaryReport(context: AppContext, scope: ReportScope, params: CommonParams, caughtUp: boolean): SummaryAnswer {
  return inSnapshot(context.db, () => {
    const db = context.db;
    const freshness = readFreshness(db, scope.siteIds);
    const currentSeq = freshness.projectedSeq;
    const selection = selectionOf(scope, params);
    const byDay = groupedReport(db, { selection, grouping: { by: 'day' }, currentSeq });
    const whole = groupedReport(db, { selection, grouping: { by: 'all' }, currentSeq });
    const days = daysOf(params);
    const dayVisitors = byDay.visitorsOf(days.map(String));
    const total = countersOf(whole.totals.get(''));
    const visits = total[field.visits]!;
    return {
      meta: buildMeta({
        scope,
        params,
        measures: withPageVisitors(measuresOf('visitors', 'visits', 'pageviews', 'events', 'bounce_rate', 'avg_visit_duration_s', 'views_per_visit'), params.filters.path !== undefined),
        freshness,
        caughtUp,
        computedFrom: whole.computedFrom,
        truncated: false,
        nextCursor: null,
        limit: null,
        now: context.clock.now(),
      }),
      data: {
        visitors: whole.visitorsOf(['']).get('')!,
        visits,
        pageviews: total[field.pageviews]!,
        events: total[field.events]!,
        bounce_rate: ratio(total[field.bounces]!, visits),
        avg_visit_duration_s: averageSeconds(total[field.duration_ms]!, visits),
        views_per_visit: ratio(total[field.visit_pageviews]!, visits),
        series: days.map((day) => {
          const counters = countersOf(byDay.totals.get(String(day)));
          return { date: toDateText(day), visitors: dayVisitors.get(String(day))!, visits: counters[field.visits]!, pageviews: counters[field.pageviews]! };
        }),
      },
    };
  });
}
