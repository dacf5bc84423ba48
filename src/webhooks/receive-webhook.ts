// One inbound webhook: adapter → the sender's address not throttled (429) → configured secret (401) → bounded raw
// bytes (413) → signature (400) → well-formed JSON event, no member name repeated (400) → mapped wire events → the
// ingest pipeline of POST /s2s/events (500 when it cannot take them). A 401 or a refused signature counts as a
// failed authentication.
import { consola } from 'consola';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { clientKeyOf, recordAuthFailure, refuseIfThrottled } from '../access/auth-throttle.ts';
import { toBodyText } from '../http/body-bytes.ts';
import { parseJsonText } from '../http/body.ts';
import { ApiError } from '../http/errors.ts';
import { parseBody } from '../http/validate.ts';
import { findIllFormedStrings } from '../http/well-formed.ts';
import { findRepeatedMembers } from '../ingest/repeated-members.ts';
import type { IngestService } from '../ingest/service.ts';
import { StripeEventBody, toWireEvents } from './stripe-events.ts';
import { verifyStripeSignature } from './stripe-signature.ts';
import { acceptedWebhookSecrets, isWebhookAdapter } from './webhook-secrets.ts';

export const WebhookAnswer = v.object({ ok: v.literal(true), forwarded: v.pipe(v.number(), v.integer(), v.minValue(0)) });
export type WebhookAnswer = v.InferOutput<typeof WebhookAnswer>;

export interface WebhookRequest {
  adapter: string;
  siteId: string;
  header(name: string): string | undefined;
  /** The sender's address as ingest resolves it (TRUST_PROXY), which failed signatures are throttled by. */
  clientIp: string | null;
  /** The body's bytes as received; 413 past `limitBytes`. */
  readBody(limitBytes: number): Promise<Buffer>;
}

/**
 * @example const answer = await receiveWebhook(context, ingest, { adapter: 'stripe', siteId: 'shop', header, readBody });
 */
export async function receiveWebhook(context: AppContext, ingest: IngestService, request: WebhookRequest): Promise<WebhookAnswer> {
  if (!isWebhookAdapter(request.adapter)) throw ApiError.notFound('No such webhook adapter');
  const throttleKey = clientKeyOf(request.clientIp);
  refuseIfThrottled(context, throttleKey);
  const secrets = acceptedWebhookSecrets(context, request.siteId, request.adapter);
  // The same answer as any failed authentication: nothing tells a missing site from one without a secret.
  if (!secrets) {
    recordAuthFailure(context, throttleKey);
    throw ApiError.unauthorized();
  }
  const body = await request.readBody(context.config.maxBodyBytes);
  try {
    verifyStripeSignature(request.header('stripe-signature'), body, secrets, context.clock.now());
  } catch (error) {
    recordAuthFailure(context, throttleKey);
    throw error;
  }
  const text = toBodyText(body);
  const document = parseJsonText(text);
  // A repeated name ("amount" twice) would leave the revenue mapped to a guess, as for ingest (docs/ingest.md).
  const refused = [...findRepeatedMembers(text, document, ''), ...findIllFormedStrings(document, '')];
  if (refused.length > 0) throw ApiError.invalidPayload(refused);
  const events = toWireEvents(request.siteId, parseBody(StripeEventBody, document));
  if (events.length === 0) return { ok: true, forwarded: 0 };
  await forward(ingest, request.siteId, events);
  return { ok: true, forwarded: events.length };
}

/** Where a field of the mapped wire event came from in the Stripe event, for the details of a 400. */
const sourceOfField: Record<string, string> = {
  ts: '/created',
  anon_id: '/data/object/customer',
  user_id: '/data/object/metadata/user_id',
  revenue: '/data/object/amount',
};

/**
 * Through the same pipeline function as POST /s2s/events. An event the wire check refuses is the body's fault (400,
 * pointing into the Stripe event: a retry would not help); anything else (tracking plan, rate limit, overload,
 * storage) is a 500 the sender retries.
 */
async function forward(ingest: IngestService, siteId: string, events: Record<string, unknown>[]): Promise<void> {
  try {
    await ingest.pipeline.ingest({ siteId, bodyText: JSON.stringify(events), channel: 's2s', clientIp: null, userAgent: null });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'invalid_payload') {
      // Pointers into the forwarded array ("/0/ts") become pointers into the body received.
      const details = (error.details ?? []).map((detail) => ({ path: sourceOfField[detail.path.split('/')[2] ?? ''] ?? '/data/object', message: detail.message }));
      throw ApiError.invalidPayload(details, 'The event maps to an event Sightline cannot store');
    }
    consola.warn(`webhook for site ${siteId} not forwarded: ${error instanceof ApiError ? `${error.status} ${error.code}` : String(error)}`);
    throw new ApiError(500, 'internal_error', 'The events could not be forwarded; retry later');
  }
}
