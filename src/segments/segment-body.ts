// What a segment may hold (CONTRACT section 10): a name, a visibility and its filters, the common filter parameters
// exactly as a report takes them (source, device, browser, os, country, region, city, path, goal, internal), each
// checked by the reports' own parser, so a segment can never hold what a report would refuse.
import * as v from 'valibot';
import type { Db } from '../db/open.ts';
import { ApiError } from '../http/errors.ts';
import { TrimmedName } from '../http/validate.ts';
import { goalFilterOf } from '../goals/site-goals.ts';
import { parseFilterParams } from '../reading/common-params.ts';

export const segmentFilterNames = ['source', 'device', 'browser', 'os', 'country', 'region', 'city', 'path', 'goal', 'internal'] as const;
export type SegmentFilters = Partial<Record<(typeof segmentFilterNames)[number], string>>;
/** Segments one site keeps at most, every owner's together. */
export const maxSegmentsPerSite = 100;

const FilterValue = v.pipe(v.string('must be a string, as in a report\'s query string'), v.minLength(1, 'must not be empty'), v.maxLength(12_000, 'must be at most 12000 characters'));
const Filters = v.pipe(
  v.strictObject(Object.fromEntries(segmentFilterNames.map((name) => [name, v.optional(FilterValue)])) as Record<(typeof segmentFilterNames)[number], v.OptionalSchema<typeof FilterValue, undefined>>),
  v.check((filters) => Object.values(filters).some((value) => value !== undefined), 'must hold at least one filter'),
);
const Visibility = v.picklist(['personal', 'site'], 'must be personal or site');

export const CreateSegmentBody = v.strictObject({ name: TrimmedName, filters: Filters, visibility: v.optional(Visibility) });
export const UpdateSegmentBody = v.strictObject({ name: v.optional(TrimmedName), filters: v.optional(Filters), visibility: v.optional(Visibility) });
export type CreateSegmentInput = v.InferOutput<typeof CreateSegmentBody>;
export type UpdateSegmentInput = v.InferOutput<typeof UpdateSegmentBody>;

/** Refuses what a report would refuse, as 400 invalid_payload pointing into /filters; keeps only the given names. */
export function checkSegmentFilters(db: Db, siteId: string, filters: SegmentFilters): SegmentFilters {
  try {
    parseFilterParams(filters);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw ApiError.invalidPayload((error.details ?? [{ path: '', message: error.message }]).map((detail) => ({ path: `/filters${detail.path}`, message: detail.message })));
  }
  if (filters.goal !== undefined) {
    try {
      goalFilterOf(db, siteId, filters.goal);
    } catch {
      throw ApiError.invalidPayload([{ path: '/filters/goal', message: 'must be the id of one of this site\'s goals' }]);
    }
  }
  return Object.fromEntries(segmentFilterNames.filter((name) => filters[name] !== undefined).map((name) => [name, filters[name]]));
}
