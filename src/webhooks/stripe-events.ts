// Stripe events → Sightline wire events (spec, "Mapped inbound events"). A mapped event's id is a UUID v5 of the
// site, adapter and Stripe event id, so a redelivery is a duplicate for ingest, never a second purchase.
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { fromMinorUnits, isCurrencyCode } from '../money/minor-units.ts';
import { ApiError } from '../http/errors.ts';
import { toErrorDetails } from '../http/validate.ts';

const serviceTypes: Record<string, string> = {
  'charge.succeeded': 'purchase',
  'customer.subscription.created': 'subscription_created',
  'customer.subscription.updated': 'subscription_updated',
  'customer.subscription.deleted': 'subscription_canceled',
};

const StripeId = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'));

/** What every Stripe event must carry, mapped or not. */
export const StripeEventBody = v.object({
  id: StripeId,
  type: StripeId,
  created: v.pipe(v.number('must be a number'), v.safeInteger('must be an integer (unix seconds)'), v.minValue(0, 'must not be negative')),
  data: v.object({ object: v.record(v.string(), v.unknown(), 'must be an object') }, 'must be an object'),
});

/** A customer as Stripe sends it: an id, or the expanded object. */
const Customer = v.nullish(v.union([StripeId, v.object({ id: StripeId })], 'must be an id or an object with an id'));
const Metadata = v.nullish(v.record(v.string(), v.unknown()));

const StripeObject = v.object({ id: StripeId, customer: Customer, metadata: Metadata });
const Charge = v.object({
  ...StripeObject.entries,
  amount: v.pipe(v.number('must be a number'), v.safeInteger('must be an integer (minor units)'), v.minValue(0, 'must not be negative')),
  currency: v.pipe(v.string('must be a string'), v.transform((code) => code.toUpperCase()), v.check(isCurrencyCode, 'must be an ISO 4217 code')),
});
const Subscription = v.object({ ...StripeObject.entries, status: v.optional(v.string()) });

/** Fixed namespace of Sightline's webhook event ids (a random UUID, chosen once). */
const eventIdNamespace = 'b7c5d0e2-3f4a-4c1e-9a5b-6d8e7f901234';

/**
 * RFC 9562 UUID version 5 (SHA-1, name-based) of `name` in `namespace`.
 * @example uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8') === '2ed6657d-e927-568b-95e1-2665a8aea6a2'
 */
export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1').update(Buffer.from(namespace.replaceAll('-', ''), 'hex')).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A metadata value usable as anon_id or user_id (1-128 characters), else undefined. */
function metadataId(metadata: Record<string, unknown> | null | undefined, name: string): string | undefined {
  const value = metadata?.[name];
  return typeof value === 'string' && value.length >= 1 && value.length <= 128 ? value : undefined;
}

function parseObject<const S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (!result.success) throw ApiError.invalidPayload(toErrorDetails(result.issues, '/data/object'));
  return result.output;
}

export type StripeEvent = v.InferOutput<typeof StripeEventBody>;

/**
 * The wire events of one Stripe event for `siteId`: none for a type the spec does not map. anon_id is
 * metadata.anon_id, else the customer id, else the object's id; user_id is metadata.user_id when present
 * (docs/webhooks.md). A mapped event whose object is malformed is a 400.
 */
export function toWireEvents(siteId: string, event: StripeEvent): Record<string, unknown>[] {
  const type = serviceTypes[event.type];
  if (!type) return [];
  const charge = type === 'purchase' ? parseObject(Charge, event.data.object) : undefined;
  const object = charge ?? parseObject(Subscription, event.data.object);
  const customer = typeof object.customer === 'string' ? object.customer : object.customer?.id;
  const userId = metadataId(object.metadata, 'user_id');
  const props: Record<string, unknown> = { stripe_event_id: event.id, stripe_object_id: object.id };
  if (customer) props.stripe_customer_id = customer;
  if ('status' in object && typeof object.status === 'string') props.status = object.status;
  return [
    {
      id: uuidV5(`${siteId}/stripe/${event.id}`, eventIdNamespace),
      site_id: siteId,
      anon_id: metadataId(object.metadata, 'anon_id') ?? customer ?? object.id,
      ...(userId ? { user_id: userId } : {}),
      ts: new Date(event.created * 1000).toISOString(),
      type,
      ...(charge ? { revenue: { amount: fromMinorUnits(charge.amount, charge.currency), currency: charge.currency } } : {}),
      props,
    },
  ];
}
