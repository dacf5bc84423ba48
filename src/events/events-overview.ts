// GET /sites/:siteId/events/overview-v2: the exact number of events in the range and the most frequent types.
import type { AppContext } from '../context.ts';
import { buildMeta } from '../reading/meta.ts';
import type { CommonParams } from '../reading/common-params.ts';
import type { ReportScope } from '../reading/scope.ts';
import { inSnapshot, readFreshness } from '../read-model/sqlite/snapshot.ts';
import type { EventOverviewAnswer } from './answers.ts';
import { boundsOfRange } from './event-params.ts';
import { eventMeasures } from './measures.ts';
import { toEventFilterParams } from '../event-store/queries/event-filter.ts';
import { countEventTypes } from '../event-store/queries/event-type-counts.ts';

/** types lists at most this many (the total counts every type). */
export const overviewTypeLimit = 50;

/** `caughtUp`: false when a visit filter waited for the projector and the wait ran out. */
export function eventsOverview(context: AppContext, scope: ReportScope, params: CommonParams, caughtUp: boolean): EventOverviewAnswer {
  const db = context.db;
  const bounds = boundsOfRange(params.range);
  const filter = toEventFilterParams(params.filters, params.withInternal);
  const { counts, freshness } = inSnapshot(db, () => {
    const byType = new Map<string, number>();
    for (const siteId of scope.siteIds) {
      for (const row of countEventTypes(db, { site_id: siteId, ...bounds, ...filter })) byType.set(row.type, (byType.get(row.type) ?? 0) + row.count);
    }
    return { counts: byType, freshness: readFreshness(db, scope.siteIds) };
  });
  const types = [...counts].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  const total = types.reduce((sum, row) => sum + row.count, 0);
  const truncated = types.length > overviewTypeLimit;
  const meta = buildMeta({
    scope,
    params,
    measures: eventMeasures.overview,
    freshness,
    caughtUp,
    computedFrom: 'event_log',
    truncated,
    nextCursor: null,
    limit: overviewTypeLimit,
    now: context.clock.now(),
  });
  if (truncated) meta.warnings.push(`types lists the ${overviewTypeLimit} most frequent of ${types.length} event types; total counts them all.`);
  return { meta, data: { total, types: types.slice(0, overviewTypeLimit) } };
}
