// The answer and body schemas of the analysis endpoints: they type the handlers and are published at GET /v1/schemas
// and in GET /v1/openapi.json (src/openapi/).
import * as v from 'valibot';
import { reportAnswer } from '../reading/meta-answer.ts';
import { FunnelQueryBody } from './funnel-query.ts';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Rate = v.pipe(v.number(), v.minValue(0));
const Seconds = v.nullable(v.pipe(v.number(), v.minValue(0)));

const StepRow = v.strictObject({
  index: v.pipe(v.number(), v.integer(), v.minValue(1)),
  label: v.string(),
  count: Count,
  conversion_from_start: Rate,
  conversion_from_previous: Rate,
  median_seconds_from_previous: Seconds,
});

export const FunnelAnswer = reportAnswer(
  v.strictObject({
    execution_id: v.string(),
    steps: v.array(StepRow),
    breakdown: v.optional(v.array(v.strictObject({ value: v.string(), steps: v.array(StepRow) }))),
  }),
);

export const CorrelationAnswer = reportAnswer(
  v.strictObject({
    factors: v.array(
      v.strictObject({
        dimension: v.picklist(['browser', 'os', 'device', 'country', 'source', 'campaign', 'entry_path', 'event_type']),
        value: v.string(),
        converted: Count,
        dropped: Count,
        odds_ratio: Rate,
        success_rate: Rate,
      }),
    ),
  }),
);

export const ExplanationAnswer = reportAnswer(
  v.strictObject({
    converted: Count,
    dropped: Count,
    time_to_convert: v.strictObject({ p50: Seconds, p90: Seconds }),
    next_events_of_dropped: v.array(v.strictObject({ type: v.string(), path: v.nullable(v.string()), count: Count })),
  }),
);

const StepIndex = v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'));

/** The body of correlation and explanation: the execution's query, the transition and the execution_id. */
export const TransitionBody = v.strictObject({
  query: FunnelQueryBody,
  transition: v.strictObject({ from_step: StepIndex, to_step: StepIndex }),
  execution_id: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(2048, 'must be at most 2048 characters')),
});

export type FunnelAnswer = v.InferOutput<typeof FunnelAnswer>;
export type CorrelationAnswer = v.InferOutput<typeof CorrelationAnswer>;
export type ExplanationAnswer = v.InferOutput<typeof ExplanationAnswer>;
