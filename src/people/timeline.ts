// GET /sites/:siteId/users/:userId/timeline: every event of every anon_id ever bound to the user on the site,
// newest first, paged by `before` (an ISO time) without ever splitting the events of one millisecond across pages
// (the read model's timeline pages so).
import * as v from 'valibot';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { toIso } from '../clock.ts';
import { ApiError } from '../http/errors.ts';
import type { QueryParameterDoc } from '../http/routes.ts';
import { integerParam, parseIsoTimestamp } from '../http/validate.ts';
import { wireFieldsOf } from '../event-store/wire-fields.ts';
import type { TimelineEvent as PersonTimelineEvent } from '../read-model/person-questions.ts';
import type { ReadModel } from '../read-model/read-model.ts';

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

function toTimelineEvent(event: PersonTimelineEvent): TimelineEvent {
  const wire = wireFieldsOf(event.raw);
  return {
    id: event.id,
    type: event.type,
    url: wire.url,
    ts: toIso(event.tsMs),
    anon_id: event.anonId,
    referrer: wire.referrer,
    country: event.country,
    city: event.city,
    browser: event.browser,
    os: event.os,
    device_type: event.deviceType,
  };
}

/**
 * The user's timeline on the site, read in one snapshot; 404 user_not_found when no event ever bound the user id.
 * @example await userTimeline(readModel, site, 'user-42', { limit: 50, before: undefined })
 */
export async function userTimeline(readModel: ReadModel, site: SiteRow, userId: string, query: TimelineQuery): Promise<TimelineAnswer> {
  const page = await readModel.timeline({ siteId: site.id, userId, beforeMs: query.before, limit: query.limit });
  if (page.unknownUser) throw new ApiError(404, 'user_not_found', 'No user with this id on this site');
  return { events: page.events.map(toTimelineEvent), next_before: page.nextBeforeMs === null ? null : toIso(page.nextBeforeMs) };
}
