// GET /sites/:siteId/users/:userId/timeline: every event of every anon_id ever bound to the user on the site,
// newest first, paged by `before` (an ISO time) without ever splitting the events of one millisecond across pages.
import * as v from 'valibot';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/open.ts';
import { ApiError } from '../http/errors.ts';
import type { QueryParameterDoc } from '../http/routes.ts';
import { integerParam, parseIsoTimestamp } from '../http/validate.ts';
import { wireFieldsOf } from '../event-store/wire-fields.ts';
import { inSnapshot } from '../read-model/sqlite/snapshot.ts';
import { listVisitorTimelineEvents, type VisitorTimelineRow } from '../projector/queries/visitor-events.ts';
import { listUserAnonIds } from '../projector/queries/user-anon-ids.ts';

export const defaultTimelineLimit = 50;
export const maxTimelineLimit = 500;

/**
 * `before` as an exclusive epoch-ms bound. Stored times are whole milliseconds, so a time with a non-zero
 * sub-millisecond part (…00.0005Z) includes its own millisecond: "strictly before" stays exact.
 */
function toExclusiveBound(text: string): number {
  const milliseconds = parseIsoTimestamp(text)!;
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
  return /[1-9]/.test(fraction.slice(3)) ? milliseconds + 1 : milliseconds;
}

export const TimelineQuery = v.object({
  limit: v.optional(integerParam(1, maxTimelineLimit), String(defaultTimelineLimit)),
  before: v.optional(
    v.pipe(
      v.string(),
      v.check((text) => parseIsoTimestamp(text) !== undefined, 'must be an ISO-8601 timestamp with an offset'),
      v.transform(toExclusiveBound),
    ),
  ),
});
export type TimelineQuery = v.InferOutput<typeof TimelineQuery>;

export const timelineQueryDocs: QueryParameterDoc[] = [
  { name: 'limit', description: `1-${maxTimelineLimit}, default ${defaultTimelineLimit}; a page ends between two milliseconds, so it may hold fewer rows (see docs/api.md)`, schema: { type: 'string', pattern: '^\\d+$' } },
  { name: 'before', description: 'ISO-8601 time with an offset: only events strictly before it (the next_before of the previous page)', schema: { type: 'string', format: 'date-time' } },
];

/** The spec's "Timeline event": never raw, props or the user agent, which may hold personal data. */
export const TimelineEvent = v.strictObject({
  id: v.string(),
  type: v.string(),
  url: v.nullable(v.string()),
  ts: v.pipe(v.string(), v.isoTimestamp()),
  anon_id: v.string(),
  referrer: v.nullable(v.string()),
  country: v.nullable(v.string()),
  city: v.nullable(v.string()),
  browser: v.nullable(v.string()),
  os: v.nullable(v.string()),
  device_type: v.nullable(v.picklist(['desktop', 'mobile', 'tablet', 'other'])),
});
export type TimelineEvent = v.InferOutput<typeof TimelineEvent>;

export const TimelineAnswer = v.strictObject({
  events: v.array(TimelineEvent),
  next_before: v.nullable(v.pipe(v.string(), v.isoTimestamp())),
});
export type TimelineAnswer = v.InferOutput<typeof TimelineAnswer>;

const noLowerBound = Number.MIN_SAFE_INTEGER;
const noUpperBound = Number.MAX_SAFE_INTEGER;

interface Window {
  notBefore: number;
  before: number;
}

/** The newest `count` events (all with -1) of the anon_ids in the window: each read in index order, then merged. */
function newestEvents(db: Db, siteId: string, anonIds: string[], window: Window, count: number): VisitorTimelineRow[] {
  const rows = anonIds.flatMap((anonId) =>
    listVisitorTimelineEvents(db, { site_id: siteId, anon_id: anonId, not_before: window.notBefore, before: window.before, limit: count }),
  );
  rows.sort((a, b) => b.ts - a.ts || b.seq - a.seq);
  return count < 0 ? rows : rows.slice(0, count);
}

/**
 * One page: at most `limit` rows ending on a millisecond boundary, so `next_before` (the last row's ts) loses no
 * row that shares it. Only when the newest millisecond alone holds more than `limit` events is the page that whole
 * millisecond (more than `limit` rows): the only way to page by an ISO time without skipping or repeating.
 */
function pageOf(db: Db, siteId: string, anonIds: string[], before: number, limit: number): { rows: VisitorTimelineRow[]; nextBefore: number | null } {
  const rows = newestEvents(db, siteId, anonIds, { notBefore: noLowerBound, before }, limit + 1);
  if (rows.length <= limit) return { rows, nextBefore: null };
  const firstLeftOut = rows[limit]!.ts;
  const cut = rows.findIndex((row) => row.ts === firstLeftOut);
  if (cut > 0) return { rows: rows.slice(0, cut), nextBefore: rows[cut - 1]!.ts };
  const wholeMillisecond = newestEvents(db, siteId, anonIds, { notBefore: firstLeftOut, before: firstLeftOut + 1 }, -1);
  const older = newestEvents(db, siteId, anonIds, { notBefore: noLowerBound, before: firstLeftOut }, 1);
  return { rows: wholeMillisecond, nextBefore: older.length > 0 ? firstLeftOut : null };
}

function toTimelineEvent(row: VisitorTimelineRow): TimelineEvent {
  const wire = wireFieldsOf(row.raw);
  return {
    id: row.id,
    type: row.type,
    url: wire.url,
    ts: toIso(row.ts),
    anon_id: row.anon_id,
    referrer: wire.referrer,
    country: row.country,
    city: row.city,
    browser: row.browser,
    os: row.os,
    device_type: row.device_type as TimelineEvent['device_type'],
  };
}

/**
 * The user's timeline on the site, read in one snapshot; 404 user_not_found when no event ever bound the user id.
 * @example userTimeline(context, site, 'user-42', { limit: 50, before: undefined })
 */
export function userTimeline(context: AppContext, site: SiteRow, userId: string, query: TimelineQuery): TimelineAnswer {
  return inSnapshot(context.db, () => {
    const anonIds = listUserAnonIds(context.db, { site_id: site.id, user_id: userId });
    if (anonIds.length === 0) throw new ApiError(404, 'user_not_found', 'No user with this id on this site');
    const page = pageOf(context.db, site.id, anonIds, query.before ?? noUpperBound, query.limit);
    return { events: page.rows.map(toTimelineEvent), next_before: page.nextBefore === null ? null : toIso(page.nextBefore) };
  });
}
