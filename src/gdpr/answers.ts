// The answer schemas of the GDPR endpoints, defined once: they type the handlers and are published at GET /v1/schemas
// and in GET /v1/openapi.json (src/openapi/).
import * as v from 'valibot';
import { ErrorDetailAnswer } from '../http/error-envelopes.ts';

const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const Identifier = v.pipe(v.string(), v.minLength(1), v.maxLength(128));

/** Who the request is about: exactly the body's one field. */
export const SubjectAnswer = v.union([v.strictObject({ user_id: Identifier }), v.strictObject({ anon_id: Identifier })]);

/** A stored event as the collector kept it: the columns it derived and the exact JSON received (raw). */
export const ExportedEventAnswer = v.strictObject({
  id: v.string(),
  type: v.string(),
  ts: IsoTime,
  received_at: IsoTime,
  anon_id: v.string(),
  user_id: v.nullable(v.string()),
  country: v.nullable(v.string()),
  region: v.nullable(v.string()),
  city: v.nullable(v.string()),
  browser: v.nullable(v.string()),
  os: v.nullable(v.string()),
  device_type: v.nullable(v.string()),
  is_bot: v.boolean(),
  is_internal: v.boolean(),
  raw: v.record(v.string(), v.unknown()),
});

/** A quarantined event of the subject (the dead-letter queue): never stored as an event, still its data. */
export const ExportedDlqRowAnswer = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  payload: v.record(v.string(), v.unknown()),
  error: v.array(ErrorDetailAnswer),
  received_at: IsoTime,
});

export const GdprExportAnswer = v.strictObject({
  subject: SubjectAnswer,
  /** The subject's anon_ids: a user's every bound device, or the anon_id itself when anything of it is stored. */
  identities: v.array(v.string()),
  /** Oldest first, (ts, seq) order; at most gdprExportMaxEvents. */
  events: v.array(ExportedEventAnswer),
  quarantined: v.array(ExportedDlqRowAnswer),
});

export const GdprDeleteAnswer = v.strictObject({
  deleted_events: v.pipe(v.number(), v.integer(), v.minValue(0)),
  deleted_identities: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
