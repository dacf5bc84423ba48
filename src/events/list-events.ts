// GET /sites/:siteId/events/list-v2: the range's events in ingest order (seq), paged by a signed cursor holding
// the last seq shown. Events that arrive while a client pages have higher seqs, so they come on later pages:
// nothing is lost or repeated.
import type { AppContext } from '../context.ts';
import { fingerprintOf, signCursor, verifyCursor } from '../reading/cursor.ts';
import { buildMeta } from '../reading/meta.ts';
import type { CommonParams } from '../reading/common-params.ts';
import type { ReportScope } from '../reading/scope.ts';
import { inSnapshot, readFreshness } from '../read-model/sqlite/snapshot.ts';
import type { EventItem, EventListAnswer } from './answers.ts';
import { boundsOfRange } from './event-params.ts';
import { toEventItem } from './event-item.ts';
import { eventMeasures } from './measures.ts';
import { toEventFilterParams } from '../event-store/queries/event-filter.ts';
import { findFirstSeqInRange } from '../event-store/queries/first-seq-in-range.ts';
import { type EventRow, listEventRows } from '../event-store/queries/list-event-rows.ts';

const cursorKind = 'events-list';

export interface ListOptions {
  limit: number;
  cursor: string | undefined;
  /** Adds to the page's items what is read elsewhere (the resolved stacks of error events), knowing each one's site. */
  enrich?: (page: { siteId: string; item: EventItem }[]) => Promise<void>;
}

/** The last seq the previous page showed, or undefined on the first page. */
function afterSeqOf(context: AppContext, cursor: string | undefined, fingerprint: string): number | undefined {
  if (cursor === undefined) return undefined;
  const seq = verifyCursor(context, cursor, cursorKind, fingerprint).s;
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : 0;
}

/** `caughtUp`: false when a visit filter waited for the projector and the wait ran out. */
export async function listEvents(context: AppContext, scope: ReportScope, params: CommonParams, options: ListOptions, caughtUp: boolean): Promise<EventListAnswer> {
  // The cursor is bound to everything that selects rows (not to limit: a client may change the page size).
  const fingerprint = fingerprintOf([cursorKind, scope.meta, params.range, params.filters, params.withInternal]);
  const afterSeq = afterSeqOf(context, options.cursor, fingerprint);
  const db = context.db;
  const bounds = boundsOfRange(params.range);
  const filter = toEventFilterParams(params.filters, params.withInternal);
  const { rows, freshness } = inSnapshot(db, () => {
    const found: (EventRow & { siteId: string })[] = [];
    for (const siteId of scope.siteIds) {
      // The first page starts at the range's first event, not at the site's first.
      const firstSeq = afterSeq === undefined ? findFirstSeqInRange(db, { site_id: siteId, ...bounds }) : afterSeq + 1;
      if (firstSeq === undefined) continue;
      for (const row of listEventRows(db, { site_id: siteId, after_seq: firstSeq - 1, ...bounds, ...filter, limit: options.limit + 1 })) found.push({ ...row, siteId });
    }
    // Each site's rows are in seq order; across sites (scope=all-sites) they interleave.
    if (scope.siteIds.length > 1) found.sort((a, b) => a.seq - b.seq);
    return { rows: found.slice(0, options.limit + 1), freshness: readFreshness(db, scope.siteIds) };
  });
  const page = rows.slice(0, options.limit);
  const more = rows.length > options.limit;
  const next = more ? signCursor(context, cursorKind, fingerprint, { s: page[page.length - 1]!.seq }) : null;
  const items = page.map((row) => ({ siteId: row.siteId, item: toEventItem(row) }));
  await options.enrich?.(items);
  return {
    meta: buildMeta({
      scope,
      params,
      measures: eventMeasures.list,
      freshness,
      caughtUp,
      computedFrom: 'event_log',
      truncated: more,
      nextCursor: next,
      limit: options.limit,
      now: context.clock.now(),
    }),
    data: { events: items.map(({ item }) => item) },
  };
}
