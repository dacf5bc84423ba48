// The shape sources-v2 and campaigns-v2 share: the values of one visit dimension ranked by visits (then value),
// the first `limit` of them with their exact visitors, in the V2 envelope.
import type { AppContext } from '../context.ts';
import type { ReportMeta } from './answers.ts';
import type { Dim } from '../projector/dimensions.ts';
import { type MeasureName, measuresOf, withPageVisitors } from './measures.ts';
import { buildMeta } from './meta.ts';
import type { CommonParams } from '../http/common-params.ts';
import { type RankedRow, rankRows } from './ranked-rows.ts';
import { groupedReport } from './read/grouped-report.ts';
import { field } from '../projector/rollup/counter-shard.ts';
import type { ReportScope } from './scope.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';
import { selectionOf } from './summary-report.ts';

export interface VisitsRanking {
  scope: ReportScope;
  params: CommonParams;
  limit: number;
  dim: Dim;
  measures: MeasureName[];
  /** Whether the wait for the projector passed every event committed before the request. */
  caughtUp: boolean;
}

/**
 * @example rankByVisits(context, { scope, params, limit, dim: Dim.source, measures }, (row, visitors) => ({ ... }));
 */
export function rankByVisits<Row>(context: AppContext, ranking: VisitsRanking, toRow: (row: RankedRow, visitors: number) => Row): { meta: ReportMeta; data: { rows: Row[] } } {
  const { scope, params, limit } = ranking;
  return inSnapshot(context.db, () => {
    const db = context.db;
    const freshness = readFreshness(db, scope.siteIds);
    const report = groupedReport(db, { selection: selectionOf(scope, params), grouping: { by: 'value', dim: ranking.dim }, currentSeq: freshness.projectedSeq });
    const rows = rankRows(report, (counters) => counters[field.events]! + counters[field.visits]! > 0, field.visits);
    const shown = rows.slice(0, limit);
    const visitors = report.visitorsOf(shown.map((row) => row.key));
    return {
      meta: buildMeta({
        scope,
        params,
        measures: withPageVisitors(measuresOf(...ranking.measures), params.filters.path !== undefined),
        freshness,
        caughtUp: ranking.caughtUp,
        computedFrom: report.computedFrom,
        truncated: rows.length > limit,
        nextCursor: null,
        limit,
        now: context.clock.now(),
      }),
      data: { rows: shown.map((row) => toRow(row, visitors.get(row.key)!)) },
    };
  });
}
