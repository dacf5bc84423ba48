// GET /sites/:siteId/events/overview-v2: the exact number of events in the range and the most frequent types.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { buildMeta } from '../reading/meta.ts';
import type { CommonParams } from '../reading/common-params.ts';
import type { ReportScope } from '../reading/scope.ts';
import type { EventOverviewAnswer } from './answers.ts';
import { selectionOf } from './event-params.ts';
import { eventMeasures } from './measures.ts';

/** types lists at most this many (the total counts every type). */
export const overviewTypeLimit = 50;

export async function eventsOverview(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams): Promise<EventOverviewAnswer> {
  const { types, freshness, computedFrom } = await readModel.eventTypeCounts(selectionOf(scope, params));
  const total = types.reduce((sum, row) => sum + row.count, 0);
  const truncated = types.length > overviewTypeLimit;
  const meta = buildMeta({
    scope,
    params,
    measures: eventMeasures.overview,
    freshness,
    caughtUp: freshness.caughtUp,
    computedFrom,
    truncated,
    nextCursor: null,
    limit: overviewTypeLimit,
    now: context.clock.now(),
  });
  if (truncated) meta.warnings.push(`types lists the ${overviewTypeLimit} most frequent of ${types.length} event types; total counts them all.`);
  return { meta, data: { total, types: types.slice(0, overviewTypeLimit) } };
}
