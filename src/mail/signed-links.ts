// Links in mails that work without signing in (the one-click unsubscribe): the token is `<subject>.<HMAC>`, the HMAC
// (SHA-256, 128 bits kept) of the purpose and the subject under a random key sealed with DATA_DIR/secrets.key, so a
// copy of the database alone cannot mint links. Checked in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { openSecret, sealSecret } from '../secrets/secret-box.ts';
import { findSealedSigningKey, insertSealedSigningKey } from './queries/signing-key-rows.ts';

const associatedData = 'mail-signing-key';
const keys = new WeakMap<object, Buffer>();

function signingKeyOf(context: AppContext): Buffer {
  const cached = keys.get(context.db);
  if (cached) return cached;
  let sealed = findSealedSigningKey(context.db);
  if (!sealed) {
    inWriteTransaction(context.db, () => insertSealedSigningKey(context.db, sealSecret(context.config.dataDir, context.random, context.random.bytes(32), associatedData)));
    // Another process may have won the insert: its key is the one.
    sealed = findSealedSigningKey(context.db)!;
  }
  const key = openSecret(context.config.dataDir, sealed, associatedData);
  keys.set(context.db, key);
  return key;
}

function macOf(key: Buffer, purpose: string, subject: string): Buffer {
  return createHmac('sha256', key).update(`${purpose}\u0000${subject}`).digest().subarray(0, 16);
}

/**
 * @example const token = signLinkToken(context, 'unsubscribe', subscriptionId); // '<id>.<22 base64url characters>'
 */
export function signLinkToken(context: AppContext, purpose: string, subject: string): string {
  return `${subject}.${macOf(signingKeyOf(context), purpose, subject).toString('base64url')}`;
}

/** The subject the token was signed for, or undefined when it is malformed or its HMAC does not match. */
export function verifyLinkToken(context: AppContext, purpose: string, token: string): string | undefined {
  const dot = token.lastIndexOf('.');
  if (dot <= 0 || token.length > 200) return undefined;
  const subject = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = macOf(signingKeyOf(context), purpose, subject);
  return given.length === expected.length && timingSafeEqual(given, expected) ? subject : undefined;
}
