// GET /sites/:siteId/events/list-v2: the range's events in ingest order (their log position), paged by a signed
// cursor holding the last position shown. Events that arrive while a client pages come later in the log, so they
// come on later pages: nothing is lost or repeated.
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { fingerprintOf, signCursor, verifyCursor } from '../reading/cursor.ts';
import { buildMeta } from '../reading/meta.ts';
import type { CommonParams } from '../reading/common-params.ts';
import type { ReportScope } from '../reading/scope.ts';
import type { EventItem, EventListAnswer } from './answers.ts';
import { selectionOf } from './event-params.ts';
import { toEventItem } from './event-item.ts';
import { eventMeasures } from './measures.ts';

const cursorKind = 'events-list';

export interface ListOptions {
  limit: number;
  /** newest: descending positions (the UI's list); oldest (default): ingest order. */
  order: 'oldest' | 'newest';
  cursor: string | undefined;
  /** Adds to the page's items what is read elsewhere (the resolved stacks of error events), knowing each one's site. */
  enrich?: (page: { siteId: string; item: EventItem }[]) => Promise<void>;
}

/** The last position the previous page showed, or undefined on the first page. */
function afterPositionOf(context: AppContext, cursor: string | undefined, fingerprint: string): number | undefined {
  if (cursor === undefined) return undefined;
  const seq = verifyCursor(context, cursor, cursorKind, fingerprint).s;
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : 0;
}

export async function listEvents(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams, options: ListOptions): Promise<EventListAnswer> {
  // The cursor is bound to everything that selects events (not to limit: a client may change the page size).
  // The order is part of it only when newest: the cursors of ingest order stay what they were.
  const fingerprint = fingerprintOf([cursorKind, scope.meta, params.range, params.filters, params.withInternal, ...(options.order === 'newest' ? ['newest'] : [])]);
  const afterPosition = afterPositionOf(context, options.cursor, fingerprint);
  const page = await readModel.listEvents({ ...selectionOf(scope, params), afterPosition, newestFirst: options.order === 'newest', limit: options.limit });
  const last = page.events[page.events.length - 1];
  const next = page.more && last ? signCursor(context, cursorKind, fingerprint, { s: last.position }) : null;
  const items = page.events.map((event) => ({ siteId: event.siteId, item: toEventItem(event) }));
  await options.enrich?.(items);
  return {
    meta: buildMeta({
      scope,
      params,
      measures: eventMeasures.list,
      freshness: page.freshness,
      caughtUp: page.freshness.caughtUp,
      computedFrom: page.computedFrom,
      truncated: page.more,
      nextCursor: next,
      limit: options.limit,
      now: context.clock.now(),
    }),
    data: { events: items.map(({ item }) => item) },
  };
}
