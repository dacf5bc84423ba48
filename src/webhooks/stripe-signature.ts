// Stripe's signature scheme: header `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, each v1 an
// HMAC-SHA256 (keyed with the whole `whsec_…` string) of `<t>.<raw body bytes>`. Any v1 matching any accepted
// secret passes; other schemes (v0) are ignored; t must be within 5 minutes of now, before or after.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/errors.ts';

export const signatureToleranceSeconds = 300;
/** Longer headers are refused unread: a rotation sends a few v1 entries, never kilobytes of them. */
export const maxSignatureHeaderLength = 4096;

const timestampPattern = /^(0|[1-9]\d{0,11})$/;

function refuse(message: string): ApiError {
  return new ApiError(400, 'invalid_signature', message);
}

interface SignatureHeader {
  timestamp: string;
  signatures: string[];
}

function parseHeader(header: string | undefined): SignatureHeader {
  if (header === undefined || header.length > maxSignatureHeaderLength) throw refuse('The Stripe-Signature header is missing or too long');
  const timestamps: string[] = [];
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const equals = item.indexOf('=');
    if (equals < 0) continue;
    const scheme = item.slice(0, equals).trim();
    const value = item.slice(equals + 1).trim();
    if (scheme === 't') timestamps.push(value);
    else if (scheme === 'v1') signatures.push(value);
  }
  if (timestamps.length !== 1 || !timestampPattern.test(timestamps[0]!)) throw refuse('The Stripe-Signature header needs exactly one t=<unix seconds>');
  if (signatures.length === 0) throw refuse('The Stripe-Signature header holds no v1 signature');
  return { timestamp: timestamps[0]!, signatures };
}

/** Digests of equal length whatever the input's, so timingSafeEqual compares in constant time and never throws. */
const digestOf = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Throws 400 invalid_signature unless `header` carries a v1 signature of `body` by one of `secrets`, timestamped
 * within 300 s of `nowMs` either way.
 * @example verifyStripeSignature(request.headers.get('stripe-signature'), bodyBytes, ['whsec_…'], clock.now());
 */
export function verifyStripeSignature(header: string | undefined, body: Buffer, secrets: readonly string[], nowMs: number): void {
  const { timestamp, signatures } = parseHeader(header);
  const age = Math.floor(nowMs / 1000) - Number(timestamp);
  if (Math.abs(age) > signatureToleranceSeconds) throw refuse('The signature timestamp is more than 5 minutes from the server\'s clock');
  const given = signatures.map(digestOf);
  let matched = false;
  for (const secret of secrets) {
    const expected = digestOf(createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest('hex'));
    for (const candidate of given) if (timingSafeEqual(candidate, expected)) matched = true;
  }
  if (!matched) throw refuse('No v1 signature matches the body with the secret of this site');
}
