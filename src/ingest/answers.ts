// The published shapes of POST /events and POST /s2s/events (CONTRACT section 2): the body (one event or 1-500) and
// the 202 answer, for GET /v1/schemas and GET /v1/openapi.json (src/openapi/).
import * as v from 'valibot';
import { WireEventSchema } from './wire.ts';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** Sent only after the accepted events are committed. */
export const IngestAnswer = v.strictObject({ accepted: Count, duplicates: Count, quarantined: Count, dropped: Count });

/** One event object, or a JSON array of 1 to 500 (Content-Type application/json or text/plain). */
export const IngestBody = v.union([WireEventSchema, v.pipe(v.array(WireEventSchema), v.minLength(1), v.maxLength(500))]);
