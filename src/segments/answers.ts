// The answer schemas of the segment endpoints, published at GET /v1/schemas and in GET /v1/openapi.json.
import * as v from 'valibot';

export const SegmentAnswer = v.strictObject({
  id: v.string(),
  site_id: v.string(),
  name: v.string(),
  /** The common filter parameters as a report takes them (name → the parameter's text). */
  filters: v.record(v.string(), v.string()),
  visibility: v.picklist(['personal', 'site']),
  owner_id: v.string(),
  created_at: v.pipe(v.string(), v.isoTimestamp()),
});
export type SegmentAnswer = v.InferOutput<typeof SegmentAnswer>;

export const SegmentListAnswer = v.strictObject({ segments: v.array(SegmentAnswer) });
