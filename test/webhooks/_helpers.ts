// Shared pieces of the webhook tests: Stripe events, headers signed by the `stripe` package's own test helper (an
// implementation independent of ours), and the POST. Not a test file itself.
import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import type { TestResponse } from '../_http.ts';
import type { TestServer } from '../_setup.ts';

const stripe = new Stripe('sk_test_webhooks');

export const secretA = 'whsec_testSecretAaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
export const secretB = 'whsec_testSecretBbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

/** Unix seconds of a clock's now. */
export const secondsOf = (milliseconds: number) => Math.floor(milliseconds / 1000);

/** A Stripe-Signature header for `payload` made by stripe's generateTestHeaderString. */
export function stripeHeader(payload: string, secret: string, timestamp: number): string {
  return stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

/** The hex v1 signature of raw bytes (for bodies the stripe helper cannot take: it wants a string). */
export function signBytes(bytes: Buffer, secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(bytes).digest('hex');
}

let counter = 0;

/** A Stripe event (a fresh evt_ id each call) of `type` whose data.object is `object`. */
export function stripeEvent(type: string, object: Record<string, unknown>, created: number, id = `evt_test_${++counter}`): Record<string, unknown> {
  return { id, object: 'event', api_version: '2024-06-20', created, livemode: false, pending_webhooks: 1, type, data: { object } };
}

export function charge(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: `ch_test_${++counter}`, object: 'charge', amount: 1999, currency: 'eur', customer: 'cus_alice', metadata: {}, paid: true, status: 'succeeded', ...fields };
}

export function subscription(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: `sub_test_${++counter}`, object: 'subscription', customer: 'cus_alice', status: 'active', metadata: {}, ...fields };
}

/** POSTs `body` as sent (string or bytes) with `signature` as the Stripe-Signature header (none when undefined). */
export function postWebhook(server: TestServer, path: string, body: string | Uint8Array, signature: string | undefined): Promise<TestResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' };
  if (signature !== undefined) headers['stripe-signature'] = signature;
  return server.request('POST', path, { token: null, rawBody: body, headers });
}
