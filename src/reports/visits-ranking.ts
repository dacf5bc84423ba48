// The shape sources-v2, campaigns-v2 and breakdown-v2 share: the values of one visit dimension ranked by visits
// (then value), the first `limit` of them with their exact visitors, in the V2 envelope.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { Figures, RankDimension, RankingAsk, RankingFigures } from '../read-model/report-questions.ts';
import type { ComputedFrom, Freshness } from '../read-model/questions.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { type MeasureName, measuresOf, withPageVisitors } from '../reading/measures.ts';
import type { ReportMeta } from '../reading/meta-answer.ts';
import { buildMeta } from '../reading/meta.ts';
import type { ReportScope } from '../reading/scope.ts';
import { selectionOf } from './summary-report.ts';

export interface VisitsRanking {
  scope: ReportScope;
  params: CommonParams;
  limit: number;
  by: RankDimension;
  /** Sources by their group (sources-v2 grouped=true). */
  groupSources?: boolean;
  measures: MeasureName[];
  /** since=: a rolling window inside the range (epoch ms). */
  sinceMs?: number;
}

/**
 * @example await rankByVisits(context, readModel, { scope, params, limit, by: 'source', measures }, (key, figures) => ({ ... }));
 */
export async function rankByVisits<Row>(
  context: AppContext,
  readModel: ReadModel,
  ranking: VisitsRanking,
  toRow: (key: string, figures: Figures) => Row,
): Promise<{ meta: ReportMeta; data: { rows: Row[] } }> {
  const answer = await readModel.ranking({ ...selectionOf(ranking.scope, ranking.params), ...visitsRankingAsk(ranking), offset: 0, sinceMs: ranking.sinceMs });
  return visitsRankingAnswer(context, ranking, answer, toRow);
}

/** What the read model is asked for a ranking by visits (alone, or in a dashboard's batch). */
export function visitsRankingAsk(ranking: VisitsRanking): RankingAsk {
  return { by: ranking.by, order: 'visits', limit: ranking.limit, groupSources: ranking.groupSources };
}

/** The V2 answer of a ranking by visits from the read model's answer. */
export function visitsRankingAnswer<Row>(
  context: AppContext,
  ranking: VisitsRanking,
  answer: RankingFigures & { freshness: Freshness; computedFrom: ComputedFrom },
  toRow: (key: string, figures: Figures) => Row,
): { meta: ReportMeta; data: { rows: Row[] } } {
  const { scope, params, limit } = ranking;
  return {
    meta: buildMeta({
      scope,
      params,
      measures: withPageVisitors(measuresOf(...ranking.measures), params.filters.path !== undefined),
      freshness: answer.freshness,
      caughtUp: answer.freshness.caughtUp,
      computedFrom: answer.computedFrom,
      imported: answer.imported,
      truncated: answer.more,
      nextCursor: null,
      limit,
      now: context.clock.now(),
    }),
    data: { rows: answer.rows.map((row) => toRow(row.key, row.figures)) },
  };
}
