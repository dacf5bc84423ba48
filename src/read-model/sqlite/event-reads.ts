// The event questions answered over the embedded database: the event log's rows, each site read through its
// (site_id, seq) or (site_id, ts) index and merged, in one read snapshot with its freshness. Only a visit filter
// waits for the projector (the filter then reads the visits it derived, up to its position: queries/event-filter.ts).
import type { Db } from '../../db/open.ts';
import type { EventRow } from '../../event-store/queries/event-row-columns.ts';
import { newestEventSeq } from '../../event-store/queries/newest-events.ts';
import { toListedEvent } from '../listed-event.ts';
import { readProjectorPosition } from '../../projector/queries/projector-state.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import type { ReportRange } from '../../vocabulary/report-filters.ts';
import type { EventListPage, EventListQuestion, EventQuestions, EventTail, EventTailQuestion, EventTypeCounts, ListedEvent, PathActivity, PathActivityQuestion, VisitorsInWindowQuestion } from '../event-questions.ts';
import type { Answer, Selection } from '../questions.ts';
import { type EventFilterParams, toEventFilterParams } from './queries/event-filter.ts';
import { countEventTypes } from './queries/event-type-counts.ts';
import { findFirstSeqInRange } from './queries/first-seq-in-range.ts';
import { listEventRows, listEventRowsBackwards } from './queries/list-event-rows.ts';
import { countPathBuckets } from './queries/path-bucket-counts.ts';
import { listStreamEventRows } from './queries/stream-event-rows.ts';
import { countVisitorsInWindow } from './queries/visitors-in-window.ts';
import { type SqliteReadOptions, toAnswerFreshness } from './report-reads.ts';
import { type Freshness, inSnapshot, readFreshness } from './snapshot.ts';

/** Event-time bounds of an inclusive range of UTC days: start_ms <= ts < end_ms. */
function boundsOf(range: ReportRange): { start_ms: number; end_ms: number } {
  return { start_ms: range.fromDay * dayMs, end_ms: (range.toDay + 1) * dayMs };
}

/** Code-unit order, as the answers have always sorted their ties. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function fromEventLog<Figures>(figures: Figures, freshness: Freshness, caughtUp: boolean): Answer<Figures> {
  return { ...figures, freshness: toAnswerFreshness(freshness, caughtUp), computedFrom: 'event_log' };
}

/** Events are read as soon as they are stored; a visit filter needs their visits, so it waits (bounded) first. */
function visitsReady({ waitForProjection }: SqliteReadOptions, filter: EventFilterParams): Promise<boolean> {
  return filter.visit_filtered ? waitForProjection() : Promise.resolve(true);
}

async function listEvents(options: SqliteReadOptions, question: EventListQuestion): Promise<Answer<EventListPage>> {
  const { db } = options;
  const bounds = boundsOf(question.range);
  const filter = toEventFilterParams(question.filters, question.withInternal);
  const caughtUp = await visitsReady(options, filter);
  const { afterPosition, limit } = question;
  return inSnapshot(db, () => {
    const found: ListedEvent[] = [];
    if (question.newestFirst) {
      const beforeSeq = afterPosition ?? Number.MAX_SAFE_INTEGER;
      for (const siteId of question.scope.siteIds) {
        for (const row of listEventRowsBackwards(db, { site_id: siteId, before_seq: beforeSeq, ...bounds, ...filter, limit: limit + 1 })) found.push(toListedEvent(row, siteId));
      }
      found.sort((a, b) => b.position - a.position);
      return fromEventLog({ events: found.slice(0, limit), more: found.length > limit }, readFreshness(db, question.scope.siteIds), caughtUp);
    }
    for (const siteId of question.scope.siteIds) {
      // The first page starts at the range's first event, not at the site's first.
      const firstSeq = afterPosition === undefined ? findFirstSeqInRange(db, { site_id: siteId, ...bounds }) : afterPosition + 1;
      if (firstSeq === undefined) continue;
      for (const row of listEventRows(db, { site_id: siteId, after_seq: firstSeq - 1, ...bounds, ...filter, limit: limit + 1 })) found.push(toListedEvent(row, siteId));
    }
    // Each site's rows are in seq order; across sites (scope=all-sites) they interleave.
    if (question.scope.siteIds.length > 1) found.sort((a, b) => a.position - b.position);
    const page = { events: found.slice(0, limit), more: found.length > limit };
    return fromEventLog(page, readFreshness(db, question.scope.siteIds), caughtUp);
  });
}

async function eventTypeCounts(options: SqliteReadOptions, question: Selection): Promise<Answer<EventTypeCounts>> {
  const { db } = options;
  const bounds = boundsOf(question.range);
  const filter = toEventFilterParams(question.filters, question.withInternal);
  const caughtUp = await visitsReady(options, filter);
  return inSnapshot(db, () => {
    const byType = new Map<string, number>();
    for (const siteId of question.scope.siteIds) {
      for (const row of countEventTypes(db, { site_id: siteId, ...bounds, ...filter })) byType.set(row.type, (byType.get(row.type) ?? 0) + row.count);
    }
    const types = [...byType].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count || byText(a.type, b.type));
    return fromEventLog({ types }, readFreshness(db, question.scope.siteIds), caughtUp);
  });
}

async function pathActivity(options: SqliteReadOptions, question: PathActivityQuestion): Promise<Answer<PathActivity>> {
  const { db } = options;
  const { window } = question;
  const bucketCount = Math.ceil((window.endMs - window.startMs) / window.bucketMs);
  const bounds = { window_start_ms: window.startMs, start_ms: question.countFromMs, end_ms: window.endMs, bucket_ms: window.bucketMs };
  const filter = toEventFilterParams(question.filters, question.withInternal);
  const caughtUp = await visitsReady(options, filter);
  return inSnapshot(db, () => {
    const byPath = new Map<string, number[]>();
    for (const siteId of question.scope.siteIds) {
      for (const row of countPathBuckets(db, { site_id: siteId, ...bounds, ...filter })) {
        let buckets = byPath.get(row.path);
        if (!buckets) byPath.set(row.path, (buckets = new Array<number>(bucketCount).fill(0)));
        buckets[row.bucket]! += row.count;
      }
    }
    const paths = [...byPath]
      .map(([path, buckets]) => ({ path, total: buckets.reduce((sum, count) => sum + count, 0), buckets }))
      .sort((a, b) => b.total - a.total || byText(a.path, b.path));
    const activity = { paths: paths.slice(0, question.limit), more: paths.length > question.limit };
    return fromEventLog(activity, readFreshness(db, question.scope.siteIds), caughtUp);
  });
}

async function eventsAfter({ db }: SqliteReadOptions, question: EventTailQuestion): Promise<EventTail> {
  const filter = toEventFilterParams(question.filters, question.withInternal);
  const bounds = question.range ? boundsOf(question.range) : { start_ms: null, end_ms: null };
  return inSnapshot(db, () => {
    // Every seq up to the newest stored one is stored (one writer, seqs in commit order), so events the filters
    // skip are looked at once, not again by the next question. A visit filter looks only at events whose visit
    // exists: up to the projector's position (read in this snapshot, as the filter's own lookup is).
    const stored = newestEventSeq(db);
    const uptoSeq = filter.visit_filtered ? Math.min(stored, readProjectorPosition(db)) : stored;
    const rows = listStreamEventRows(db, {
      site_id: question.siteId,
      after_seq: question.afterPosition,
      upto_seq: uptoSeq,
      ...bounds,
      ...filter,
      type: question.type,
      anon_id: question.anonId,
      limit: question.limit,
    });
    const events = rows.map((row) => toListedEvent(row, question.siteId));
    const throughPosition = events.length < question.limit ? Math.max(question.afterPosition, uptoSeq) : events[events.length - 1]!.position;
    return { events, throughPosition };
  });
}

export function createSqliteEventReads(options: SqliteReadOptions): EventQuestions {
  return {
    listEvents: (question) => listEvents(options, question),
    eventTypeCounts: (question) => eventTypeCounts(options, question),
    pathActivity: (question) => pathActivity(options, question),
    eventsAfter: (question) => eventsAfter(options, question),
    newestPosition: async () => newestEventSeq(options.db),
    visitorsInWindow: async (question: VisitorsInWindowQuestion) => ({
      visitors: countVisitorsInWindow(options.db, {
        site_ids: JSON.stringify(question.scope.siteIds),
        start_ms: question.startMs,
        end_ms: question.endMs,
        with_internal: question.withInternal ? 1 : 0,
      }),
    }),
  };
}
