// The answer schemas of the integration endpoints, published at GET /v1/schemas and in GET /v1/openapi.json.
import * as v from 'valibot';
import { bridgeSignals } from './bridge-action.ts';
import { subscribableEventTypes } from './event-types.ts';
import { attemptOutcomes } from './queries/attempt-rows.ts';

const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const Uuid = v.pipe(v.string(), v.uuid());

export const BridgeActionAnswer = v.strictObject({
  id: Uuid,
  lead_id: v.pipe(v.string(), v.minLength(1)),
  action: v.literal('lead.signal'),
  signal: v.picklist(bridgeSignals),
  recorded_at: IsoTime,
  replayed: v.boolean(),
});

export const EndpointAnswer = v.strictObject({
  id: Uuid,
  url: v.pipe(v.string(), v.url()),
  description: v.nullable(v.string()),
  event_types: v.array(v.picklist(subscribableEventTypes)),
  status: v.picklist(['active', 'disabled']),
  disabled_reason: v.nullable(v.picklist(['gone', 'operator'])),
  created_at: IsoTime,
  updated_at: IsoTime,
});

export const CreatedEndpointAnswer = v.strictObject({
  ...EndpointAnswer.entries,
  secret: v.pipe(v.string(), v.regex(/^whsec_[A-Za-z0-9+/]{32}$/)),
  warning: v.string(),
});

export const EndpointListAnswer = v.strictObject({ endpoints: v.array(EndpointAnswer), next_cursor: v.nullable(v.pipe(v.string(), v.minLength(1))) });

const AttemptAnswer = v.strictObject({
  attempted_at: IsoTime,
  outcome: v.picklist(attemptOutcomes),
  status_code: v.nullable(v.pipe(v.number(), v.integer())),
  latency_ms: v.pipe(v.number(), v.integer(), v.minValue(0)),
  response_excerpt: v.nullable(v.pipe(v.string(), v.maxLength(1024))),
});

export const DeliveryAnswer = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^msg_[A-Za-z0-9_-]{22}$/)),
  type: v.string(),
  status: v.picklist(['pending', 'delivered', 'failed']),
  attempts: v.pipe(v.number(), v.integer(), v.minValue(0)),
  next_attempt_at: v.nullable(IsoTime),
  created_at: IsoTime,
  history: v.array(AttemptAnswer),
});

export const DeliveryPageAnswer = v.strictObject({ deliveries: v.array(DeliveryAnswer), next_cursor: v.nullable(v.pipe(v.string(), v.minLength(1))) });
