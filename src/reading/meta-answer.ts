// The meta every V2 answer carries (CONTRACT section 5), as a schema: it types buildMeta and is published with each
// answer (src/openapi/).
import * as v from 'valibot';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const DateText = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/));
const IsoTime = v.pipe(v.string(), v.isoTimestamp());

/** meta.freshness: receive times of the scope's newest committed event and of the newest one the projector has counted. */
export const FreshnessAnswer = v.strictObject({ watermark: v.nullable(IsoTime), projected_through: v.nullable(IsoTime) });
/** meta.completeness: reason `projection_lag` when the bounded wait for the projector ran out. */
export const CompletenessAnswer = v.strictObject({ complete: v.boolean(), reason: v.optional(v.string()) });

export const ReportMeta = v.strictObject({
  scope: v.union([v.strictObject({ site_id: v.string() }), v.strictObject({ workspace: v.string(), all_sites: v.literal(true) })]),
  range: v.strictObject({ from: DateText, to: DateText }),
  timezone: v.literal('UTC'),
  filters: v.record(v.string(), v.union([v.string(), v.array(v.string())])),
  measures: v.record(v.string(), v.string()),
  freshness: FreshnessAnswer,
  completeness: CompletenessAnswer,
  warnings: v.array(v.string()),
  truncated: v.boolean(),
  cursor: v.strictObject({ next: v.nullable(v.string()) }),
  limit: v.nullable(Count),
  /** rollups; events: a raw fallback (with a warning); event_log: read from the event rows by design (src/events/). */
  computed_from: v.picklist(['rollups', 'events', 'event_log']),
  /** Present when imported daily figures (Plausible's aggregates) were added; `inexact`: the figures they make approximate. */
  imported: v.optional(v.literal(true)),
  inexact: v.optional(v.array(v.string())),
});
export type ReportMeta = v.InferOutput<typeof ReportMeta>;

/** The V2 envelope: exactly meta and data. */
export function reportAnswer<const Data extends v.GenericSchema>(data: Data) {
  return v.strictObject({ meta: ReportMeta, data });
}
