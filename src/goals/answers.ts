// The answer schemas of the goal endpoints, published at GET /v1/schemas and in GET /v1/openapi.json.
import * as v from 'valibot';

export const GoalAnswer = v.strictObject({
  id: v.string(),
  site_id: v.string(),
  name: v.string(),
  kind: v.picklist(['pageview', 'event']),
  /** Exact, or ending in * (a folder and below). */
  path: v.optional(v.string()),
  event_type: v.optional(v.string()),
  /** Every key must hold exactly this value. */
  props: v.optional(v.record(v.string(), v.string())),
  created_at: v.pipe(v.string(), v.isoTimestamp()),
});
export type GoalAnswer = v.InferOutput<typeof GoalAnswer>;

export const GoalListAnswer = v.strictObject({ goals: v.array(GoalAnswer) });
