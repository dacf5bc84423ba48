// The answer schemas of the Events v2 endpoints (CONTRACT section 5), in the V2 { meta, data } envelope; published
// with the report schemas at GET /v1/schemas and in GET /v1/openapi.json.
import * as v from 'valibot';
import { reportAnswer } from '../reading/meta-answer.ts';
import { ResolvedFrame } from '../sourcemaps/answers.ts';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const IsoTime = v.pipe(v.string(), v.isoTimestamp());

/** One event as list-v2 lists it and stream-v2 sends it (no raw payload, no user agent: they may hold personal data). */
export const EventItem = v.strictObject({
  id: v.string(),
  type: v.string(),
  ts: IsoTime,
  received_at: IsoTime,
  anon_id: v.string(),
  url: v.nullable(v.string()),
  path: v.nullable(v.string()),
  referrer: v.nullable(v.string()),
  source: v.string(),
  country: v.nullable(v.string()),
  region: v.nullable(v.string()),
  city: v.nullable(v.string()),
  browser: v.nullable(v.string()),
  os: v.nullable(v.string()),
  device_type: v.nullable(v.picklist(['desktop', 'mobile', 'tablet', 'other'])),
  props: v.nullable(v.record(v.string(), v.unknown())),
  /**
   * Events of type error only, in list-v2: the frames of props.stack, each with its original position through the
   * site's source map of props.release (null where none covers it); null without a props.stack text.
   */
  resolved_stack: v.optional(v.nullable(v.array(ResolvedFrame))),
});

export const EventListAnswer = reportAnswer(v.strictObject({ events: v.array(EventItem) }));

export const EventOverviewAnswer = reportAnswer(
  v.strictObject({ total: Count, types: v.array(v.strictObject({ type: v.string(), count: Count })) }),
);

export const EventActivityAnswer = reportAnswer(
  v.strictObject({
    window: v.strictObject({ start: IsoTime, end: IsoTime }),
    bucket_minutes: v.literal(5),
    paths: v.array(v.strictObject({ path: v.string(), total: Count, buckets: v.pipe(v.array(Count), v.length(12)) })),
  }),
);

export type EventItem = v.InferOutput<typeof EventItem>;
export type EventListAnswer = v.InferOutput<typeof EventListAnswer>;
export type EventOverviewAnswer = v.InferOutput<typeof EventOverviewAnswer>;
export type EventActivityAnswer = v.InferOutput<typeof EventActivityAnswer>;
