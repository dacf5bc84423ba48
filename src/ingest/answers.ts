// The published shapes of POST /events and POST /s2s/events (CONTRACT section 2): the body (one event or 1-500) and
// the 202 answer, for GET /v1/schemas and GET /v1/openapi.json (src/openapi/).
import * as v from 'valibot';
import { WireEventSchema } from '../event-store/wire-event.ts';

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * Sent only after the accepted events are committed. `bots` is how many of the accepted events were classified as
 * bots (by the User-Agent header on /events, context.user_agent on /s2s/events): stored, but never in a report or
 * the stream, so a client can tell why an accepted event does not show.
 */
export const IngestAnswer = v.strictObject({
  accepted: Count,
  bots: v.pipe(Count, v.description('Of the accepted events, how many were classified as bots: stored, but never counted in reports nor sent on stream-v2')),
  duplicates: Count,
  quarantined: Count,
  dropped: Count,
});

/** One event object, or a JSON array of 1 to 500 (Content-Type application/json or text/plain). */
export const IngestBody = v.union([WireEventSchema, v.pipe(v.array(WireEventSchema), v.minLength(1), v.maxLength(500))]);
