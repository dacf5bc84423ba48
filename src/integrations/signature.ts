// The Standard Webhooks signature (standardwebhooks.com): HMAC-SHA256 of "id.timestamp.body" under the secret's
// bytes (the base64 after whsec_), sent base64 as "v1,<signature>" with the webhook-id and webhook-timestamp headers.
import { createHmac } from 'node:crypto';

export const secretPrefix = 'whsec_';
/** 24 random bytes: 32 base64 characters after the prefix (Standard Webhooks asks for 24 to 64 bytes). */
export const secretBytes = 24;

/** The text shown to the operator once. @example toSecretText(bytes) // 'whsec_…' */
export function toSecretText(secret: Buffer): string {
  return secretPrefix + secret.toString('base64');
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * @example signWebhook(secret, 'msg_1', 1700000000, '{"a":1}')['webhook-signature'] // 'v1,…'
 */
export function signWebhook(secret: Buffer, id: string, timestampSeconds: number, body: string): SignedHeaders {
  const signature = createHmac('sha256', secret).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}
