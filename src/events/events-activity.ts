// GET /sites/:siteId/events/activity-v2: one 60-minute window [end − 60 min, end) in twelve 5-minute buckets, for
// the paths with the most events, dense (zeros included). With from/to only the part of the window inside the
// range counts.
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { buildMeta } from '../reading/meta.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { dayOf, toDateText } from '../vocabulary/periods.ts';
import type { ReportScope } from '../reading/scope.ts';
import { inSnapshot, readFreshness } from '../read-model/sqlite/snapshot.ts';
import type { EventActivityAnswer } from './answers.ts';
import { type ActivityParams, activityBucketMs, activityWindowMs, boundsOfRange } from './event-params.ts';
import { eventMeasures } from './measures.ts';
import { toEventFilterParams } from '../event-store/queries/event-filter.ts';
import { countPathBuckets } from '../event-store/queries/path-bucket-counts.ts';

const bucketCount = activityWindowMs / activityBucketMs;

export interface ActivityOptions {
  limit: number;
}

/** `caughtUp`: false when a visit filter waited for the projector and the wait ran out. */
export function eventsActivity(context: AppContext, scope: ReportScope, params: ActivityParams, options: ActivityOptions, caughtUp: boolean): EventActivityAnswer {
  const db = context.db;
  const { endMs, dates, ...filters } = params;
  const startMs = endMs - activityWindowMs;
  // The window never ends after the range (parseActivityParams caps end), but may start before it.
  const countFromMs = dates ? Math.max(startMs, boundsOfRange(dates.range).start_ms) : startMs;
  const bounds = { window_start_ms: startMs, start_ms: countFromMs, end_ms: endMs, bucket_ms: activityBucketMs };
  const filter = toEventFilterParams(filters.filters, filters.withInternal);
  const { byPath, freshness } = inSnapshot(db, () => {
    const buckets = new Map<string, number[]>();
    for (const siteId of scope.siteIds) {
      for (const row of countPathBuckets(db, { site_id: siteId, ...bounds, ...filter })) {
        let counts = buckets.get(row.path);
        if (!counts) buckets.set(row.path, (counts = new Array<number>(bucketCount).fill(0)));
        counts[row.bucket]! += row.count;
      }
    }
    return { byPath: buckets, freshness: readFreshness(db, scope.siteIds) };
  });
  const paths = [...byPath]
    .map(([path, buckets]) => ({ path, total: buckets.reduce((sum, count) => sum + count, 0), buckets }))
    .sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // meta.range: from/to as given, else the UTC day(s) the window touches (its last instant is end − 1 ms).
  const windowDays = { fromDay: dayOf(startMs), toDay: dayOf(endMs - 1) };
  const range = dates ?? { range: windowDays, from: toDateText(windowDays.fromDay), to: toDateText(windowDays.toDay) };
  const metaParams: CommonParams = { ...filters, ...range };
  return {
    meta: buildMeta({
      scope,
      params: metaParams,
      measures: eventMeasures.activity,
      freshness,
      caughtUp,
      computedFrom: 'event_log',
      truncated: paths.length > options.limit,
      nextCursor: null,
      limit: options.limit,
      now: context.clock.now(),
    }),
    data: {
      window: { start: toIso(startMs), end: toIso(endMs) },
      bucket_minutes: 5,
      paths: paths.slice(0, options.limit),
    },
  };
}
