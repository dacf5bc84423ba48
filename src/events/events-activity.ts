// GET /sites/:siteId/events/activity-v2: one 60-minute window [end − 60 min, end) in twelve 5-minute buckets, for
// the paths with the most events, dense (zeros included). With from/to only the part of the window inside the
// range counts.
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { buildMeta } from '../reading/meta.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { dayOf, toDateText } from '../vocabulary/periods.ts';
import type { ReportScope } from '../reading/scope.ts';
import type { EventActivityAnswer } from './answers.ts';
import { type ActivityParams, activityBucketMs, activityWindowMs, boundsOfRange } from './event-params.ts';
import { eventMeasures } from './measures.ts';

export interface ActivityOptions {
  limit: number;
}

export async function eventsActivity(context: AppContext, readModel: ReadModel, scope: ReportScope, params: ActivityParams, options: ActivityOptions): Promise<EventActivityAnswer> {
  const { endMs, dates, ...filters } = params;
  const startMs = endMs - activityWindowMs;
  // The window never ends after the range (parseActivityParams caps end), but may start before it.
  const countFromMs = dates ? Math.max(startMs, boundsOfRange(dates.range).start_ms) : startMs;
  const activity = await readModel.pathActivity({
    scope,
    filters: filters.filters,
    withInternal: filters.withInternal,
    window: { startMs, endMs, bucketMs: activityBucketMs },
    countFromMs,
    limit: options.limit,
  });
  // meta.range: from/to as given, else the UTC day(s) the window touches (its last instant is end − 1 ms).
  const windowDays = { fromDay: dayOf(startMs), toDay: dayOf(endMs - 1) };
  const range = dates ?? { range: windowDays, from: toDateText(windowDays.fromDay), to: toDateText(windowDays.toDay) };
  const metaParams: CommonParams = { ...filters, ...range };
  return {
    meta: buildMeta({
      scope,
      params: metaParams,
      measures: eventMeasures.activity,
      freshness: activity.freshness,
      caughtUp: activity.freshness.caughtUp,
      computedFrom: activity.computedFrom,
      truncated: activity.more,
      nextCursor: null,
      limit: options.limit,
      now: context.clock.now(),
    }),
    data: {
      window: { start: toIso(startMs), end: toIso(endMs) },
      bucket_minutes: 5,
      paths: activity.paths,
    },
  };
}
