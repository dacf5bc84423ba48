// The answer schemas of the dead-letter queue endpoints, defined once: they type the handlers and are published at
// GET /v1/schemas and in GET /v1/openapi.json (src/openapi/).
import * as v from 'valibot';
import { ErrorDetailAnswer } from '../http/error-envelopes.ts';

const IsoTime = v.pipe(v.string(), v.isoTimestamp());

/** A quarantined event: its wire JSON as received and why the tracking plan refused it. */
export const DlqEntryAnswer = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  site_id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/)),
  payload: v.record(v.string(), v.unknown()),
  error: v.array(ErrorDetailAnswer),
  received_at: IsoTime,
});

/** Newest first; next_cursor is the received_at of the last row when older rows exist. */
export const DlqListAnswer = v.strictObject({ events: v.array(DlqEntryAnswer), next_cursor: v.nullable(IsoTime) });

export const DlqReplayAnswer = v.strictObject({ id: v.pipe(v.string(), v.uuid()), replayed_at: IsoTime });
