// GET /sites/:siteId/events/activity-v2: one 60-minute window [end − 60 min, end) in twelve 5-minute buckets, for
// the paths with the most events, dense (zeros included).
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { buildMeta } from '../reports/meta.ts';
import type { CommonParams } from '../reports/params.ts';
import { dayOf, toDateText } from '../projector/periods.ts';
import type { ReportScope } from '../reports/scope.ts';
import { inSnapshot } from '../reports/snapshot.ts';
import type { EventActivityAnswer } from './answers.ts';
import { activityBucketMs, activityWindowMs } from './event-params.ts';
import { eventMeasures } from './measures.ts';
import { toEventFilterParams } from './queries/event-filter.ts';
import { newestReceivedAt } from '../event-store/queries/newest-events.ts';
import { countPathBuckets } from './queries/path-bucket-counts.ts';

const bucketCount = activityWindowMs / activityBucketMs;

export interface ActivityOptions {
  endMs: number;
  limit: number;
}

export function eventsActivity(
  context: AppContext,
  scope: ReportScope,
  filters: Omit<CommonParams, 'range' | 'from' | 'to'>,
  options: ActivityOptions,
): EventActivityAnswer {
  const db = context.db;
  const startMs = options.endMs - activityWindowMs;
  const filter = toEventFilterParams(filters.filters, filters.withInternal);
  const { byPath, watermarkMs } = inSnapshot(db, () => {
    const buckets = new Map<string, number[]>();
    for (const siteId of scope.siteIds) {
      for (const row of countPathBuckets(db, { site_id: siteId, start_ms: startMs, end_ms: options.endMs, bucket_ms: activityBucketMs, ...filter })) {
        let counts = buckets.get(row.path);
        if (!counts) buckets.set(row.path, (counts = new Array<number>(bucketCount).fill(0)));
        counts[row.bucket]! += row.count;
      }
    }
    return { byPath: buckets, watermarkMs: newestReceivedAt(db, scope.siteIds) };
  });
  const paths = [...byPath]
    .map(([path, buckets]) => ({ path, total: buckets.reduce((sum, count) => sum + count, 0), buckets }))
    .sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // meta.range: the UTC day(s) the window touches (its last instant is end − 1 ms).
  const range = { fromDay: dayOf(startMs), toDay: dayOf(options.endMs - 1) };
  const params: CommonParams = { ...filters, range, from: toDateText(range.fromDay), to: toDateText(range.toDay) };
  return {
    meta: buildMeta({
      scope,
      params,
      measures: eventMeasures.activity,
      watermarkMs,
      computedFrom: 'event_log',
      truncated: paths.length > options.limit,
      nextCursor: null,
      limit: options.limit,
      now: context.clock.now(),
    }),
    data: {
      window: { start: toIso(startMs), end: toIso(options.endMs) },
      bucket_minutes: 5,
      paths: paths.slice(0, options.limit),
    },
  };
}
