// The answer schemas of the behaviour reports (journeys-v2, page-flow-v2, retention-v2), defined once: they type the
// reports and are published at GET /v1/schemas and in GET /v1/openapi.json (src/openapi/).
import * as v from 'valibot';
import { reportAnswer } from '../reading/meta-answer.ts';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const DateText = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/));
const PathVisits = v.strictObject({ path: v.string(), visits: Count });

export const JourneysAnswer = reportAnswer(
  v.strictObject({ paths: v.array(v.strictObject({ steps: v.array(v.string()), visitors: Count, visits: Count })) }),
);
export type JourneysAnswer = v.InferOutput<typeof JourneysAnswer>;

export const PageFlowAnswer = reportAnswer(v.strictObject({ previous: v.array(PathVisits), next: v.array(PathVisits), exits: Count }));
export type PageFlowAnswer = v.InferOutput<typeof PageFlowAnswer>;

export const RetentionAnswer = reportAnswer(
  v.strictObject({ cohorts: v.array(v.strictObject({ start: DateText, size: Count, returning: v.array(Count) })) }),
);
export type RetentionAnswer = v.InferOutput<typeof RetentionAnswer>;
