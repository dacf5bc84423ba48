// Who is calling: the admin token (constant-time over fixed-length digests) or an API key (looked up by its hash),
// as a bearer (failures throttled per client address: auth-throttle.ts) or through the admin UI's session cookie.
// Keys and sessions are looked up through the context's AccessLookups (lookups.ts), which the app hands in.
import { timingSafeEqual } from 'node:crypto';
import type { H3Event } from 'h3';
import { ApiError } from '../http/errors.ts';
import { hashSecret } from '../tenants/api-key-token.ts';
import { checkSecret, clientIpOf, clientKeyOf } from './auth-throttle.ts';
import type { Caller } from './caller.ts';
import type { AccessContext } from './lookups.ts';

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

export function isAdminToken(context: Pick<AccessContext, 'adminToken'>, token: string): boolean {
  // Digests have a fixed length, so a token of any length is compared in constant time and never throws.
  return timingSafeEqual(hashSecret(token), hashSecret(context.adminToken));
}

/** Resolves an API key plaintext to a caller; revoked and unknown keys give undefined. */
export function authenticateApiKey(context: Pick<AccessContext, 'access'>, token: string): Caller | undefined {
  if (!token.startsWith('sk_') || token.length > 256) return undefined;
  const key = context.access.findKeyByHash(hashSecret(token));
  if (!key || key.revoked) return undefined;
  context.access.recordKeyUse(key.id);
  return { kind: 'apiKey', keyId: key.id, workspaceId: key.workspaceId, scopes: key.scopes };
}

/** The admin token or an API key, whichever `token` is; undefined for neither. */
export function callerOfSecret(context: Pick<AccessContext, 'adminToken' | 'access'>, token: string): Caller | undefined {
  return isAdminToken(context, token) ? { kind: 'admin' } : authenticateApiKey(context, token);
}

/**
 * The admin token or an API key as a bearer, else the admin UI's session cookie standing for one of them or for a
 * signed-in user (same-site,
 * and with the CSRF header on a mutating request: src/ui/session.ts); anything else is a 401. A bearer is a guess
 * of a secret: from a client address that failed too often it is 429 rate_limited, right or wrong alike. The
 * session cookie (256 random bits, given only after a sign-in that was itself throttled) is not, so a browser
 * already signed in keeps working there. Ingest never calls it.
 */
export function authenticate(event: H3Event, context: AccessContext): Caller {
  const token = readBearer(event);
  if (!token) {
    const sessionCaller = context.access.sessionCallerOf(event) ?? context.access.userSessionCallerOf(event);
    if (!sessionCaller) throw ApiError.unauthorized();
    return sessionCaller;
  }
  const caller = checkSecret(context, clientKeyOf(clientIpOf(event, context)), () => callerOfSecret(context, token));
  if (!caller) throw ApiError.unauthorized();
  return caller;
}
