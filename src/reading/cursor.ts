// Opaque, tamper-evident cursors for paged reports and event lists: the state a next page needs, as base64url
// JSON, with an HMAC-SHA256 (truncated to 128 bits) under a secret generated once per database. A cursor that
// was altered, forged, or issued for another query is refused with 400 invalid_param.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/open.ts';
import { reportErrors } from './common-param-errors.ts';
import { insertStateValueIfMissing, readStateValue } from './queries/state-rows.ts';

const secretName = 'cursor_secret';
const secrets = new WeakMap<Db, Buffer>();

/** What signing and verifying need: the database holding the secret, and randomness to generate it the first time. */
export type CursorContext = Pick<AppContext, 'db' | 'random'>;

/**
 * Once per app start: the cursor secret exists (created here, outside any read's snapshot, so reading a cursor never
 * has to write).
 */
export function prepareCursorSecret(context: CursorContext): void {
  insertStateValueIfMissing(context.db, secretName, context.random.bytes(32));
}

/**
 * The database's cursor secret, generated and stored on first use: a worker thread with a read-only connection is
 * handed it (adoptCursorSecret), since it could not store one.
 * @example const secret = cursorSecretOf(context);
 */
export function cursorSecretOf(context: CursorContext): Buffer {
  return secretOf(context);
}

/** Signs and verifies on `db` with a secret read elsewhere. @example adoptCursorSecret(readOnlyDb, secret); */
export function adoptCursorSecret(db: Db, secret: Buffer): void {
  secrets.set(db, secret);
}

function secretOf(context: CursorContext): Buffer {
  let secret = secrets.get(context.db);
  if (!secret) {
    // The first caller generates it; a concurrent process keeps whichever was stored first.
    if (readStateValue(context.db, secretName) === undefined) insertStateValueIfMissing(context.db, secretName, context.random.bytes(32));
    secret = readStateValue(context.db, secretName) as Buffer;
    secrets.set(context.db, secret);
  }
  return secret;
}

function mac(secret: Buffer, body: string): Buffer {
  return createHmac('sha256', secret).update(body).digest().subarray(0, 16);
}

/**
 * @example const cursor = signCursor(context, 'pages', fingerprint, { o: 20, w: 1234 });
 */
export function signCursor(context: CursorContext, kind: string, fingerprint: string, state: Record<string, number | string>): string {
  const body = Buffer.from(JSON.stringify({ k: kind, f: fingerprint, ...state }), 'utf8').toString('base64url');
  return `${body}.${mac(secretOf(context), body).toString('base64url')}`;
}

/** The state of a cursor this server issued for the same kind and query; anything else is a 400. */
export function verifyCursor(context: CursorContext, cursor: string, kind: string, fingerprint: string, name = 'cursor'): Record<string, number | string> {
  const refuse = () => reportErrors.invalidParam(name, 'is not a cursor this server issued for this query');
  const [body, signature, ...rest] = cursor.split('.');
  if (!body || !signature || rest.length > 0 || cursor.length > 2048) throw refuse();
  const expected = mac(secretOf(context), body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refuse();
  const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, number | string>;
  if (state.k !== kind || state.f !== fingerprint) throw refuse();
  return state;
}

/** A short digest of what a cursor is bound to (scope, range, filters…), so it cannot be reused elsewhere. */
export function fingerprintOf(parts: unknown): string {
  return createHmac('sha256', 'sightline-cursor-fingerprint').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}
