// Who is calling: the admin token (constant-time over fixed-length digests) or an API key (looked up by its hash),
// as a bearer (failures throttled per client address: auth-throttle.ts) or through the admin UI's session cookie.
import { timingSafeEqual } from 'node:crypto';
import type { H3Event } from 'h3';
import { hashSecret } from '../tenants/api-key-token.ts';
import { findKeyByHash, touchKeyLastUsed } from '../tenants/queries/find-key-by-hash.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/open.ts';
import { checkSecret, clientIpOf, clientKeyOf } from './auth-throttle.ts';
import { ApiError } from './errors.ts';
import { runWithoutWaiting } from '../db/statements.ts';
import { sessionCallerOf } from '../ui/session.ts';

export const allScopes = ['ingest:write', 'query:read', 'admin', 'integrations:write'] as const;
export type Scope = (typeof allScopes)[number];

export type Caller =
  | { kind: 'admin' }
  | { kind: 'apiKey'; keyId: string; workspaceId: string; scopes: readonly Scope[] };

/** last_used_at is written at most once a minute per key, so reads do not turn into writes. */
const lastUsedWriteIntervalMs = 60_000;
const lastUsedWrites = new WeakMap<Db, Map<string, number>>();

/** The bearer token of the request, or undefined when there is none. */
export function readBearer(event: H3Event): string | undefined {
  return bearerOf(event.req.headers.get('authorization'));
}

/** The token of an `Authorization: Bearer <token>` header value. */
export function bearerOf(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export function isAdminToken(context: AppContext, token: string): boolean {
  // Digests have a fixed length, so a token of any length is compared in constant time and never throws.
  return timingSafeEqual(hashSecret(token), hashSecret(context.adminToken));
}

/** Resolves an API key plaintext to a caller; revoked and unknown keys give undefined. */
export function authenticateApiKey(context: AppContext, token: string): Caller | undefined {
  if (!token.startsWith('sk_') || token.length > 256) return undefined;
  const row = findKeyByHash(context.db, hashSecret(token));
  if (!row || row.revoked_at !== null) return undefined;
  recordKeyUse(context, row.id);
  return { kind: 'apiKey', keyId: row.id, workspaceId: row.workspace_id, scopes: JSON.parse(row.scopes) as Scope[] };
}

/** The admin token or an API key, whichever `token` is; undefined for neither. */
export function callerOfSecret(context: AppContext, token: string): Caller | undefined {
  return isAdminToken(context, token) ? { kind: 'admin' } : authenticateApiKey(context, token);
}

/**
 * The admin token or an API key as a bearer, else the admin UI's session cookie standing for one of them (same-site,
 * and with the CSRF header on a mutating request: src/ui/session.ts); anything else is a 401. A bearer is a guess
 * of a secret: from a client address that failed too often it is 429 rate_limited, right or wrong alike. The
 * session cookie (256 random bits, given only after a sign-in that was itself throttled) is not, so a browser
 * already signed in keeps working there. Ingest never calls it.
 */
export function authenticate(event: H3Event, context: AppContext): Caller {
  const token = readBearer(event);
  if (!token) {
    const sessionCaller = sessionCallerOf(event, context);
    if (!sessionCaller) throw ApiError.unauthorized();
    return sessionCaller;
  }
  const caller = checkSecret(context, clientKeyOf(clientIpOf(event, context)), () => callerOfSecret(context, token));
  if (!caller) throw ApiError.unauthorized();
  return caller;
}

/** The admin scope is a wildcard (spec, Authentication rule 2). */
export function hasScope(caller: Caller, scope: Scope): boolean {
  return caller.kind === 'admin' || caller.scopes.includes('admin') || caller.scopes.includes(scope);
}

function recordKeyUse(context: AppContext, keyId: string): void {
  let writes = lastUsedWrites.get(context.db);
  if (!writes) {
    writes = new Map();
    lastUsedWrites.set(context.db, writes);
  }
  const now = context.clock.now();
  const previous = writes.get(keyId);
  if (previous !== undefined && now - previous < lastUsedWriteIntervalMs) return;
  writes.set(keyId, now);
  try {
    runWithoutWaiting(context.db, () => touchKeyLastUsed(context.db, keyId, toIso(now)));
  } catch {
    // A busy database (a projector batch) must neither fail nor hold the request: the next use writes it.
    writes.delete(keyId);
  }
}
