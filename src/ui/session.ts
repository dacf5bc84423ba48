// UI sessions: the admin token or an API key exchanged for a random cookie (32 bytes; only its SHA-256 is stored),
// idle for at most 12 hours and alive for at most 7 days, ended by sign-out. The cookie stands for the credential it
// was exchanged for, on the routes a bearer reaches, under three conditions: the request is not cross-site, and a
// mutating request carries X-Sightline-CSRF, a per-session token derived from the cookie (docs/admin-ui.md).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { H3Event } from 'h3';
import { hashSecret } from '../tenants/api-key-token.ts';
import { findKeyById } from '../tenants/queries/key-credentials.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { Caller, Scope } from '../access/caller.ts';
import { deleteExpiredSessions, deleteSession, findSessionByHash, insertSession, type SessionRow, touchSession } from './queries/session-rows.ts';

export const sessionCookieName = 'sightline_session';
export const csrfHeaderName = 'x-sightline-csrf';
export const sessionIdleMs = 12 * 60 * 60 * 1000;
export const sessionLifetimeMs = 7 * 24 * 60 * 60 * 1000;
/** last_used_at is written at most once a minute per session, so reads do not all turn into writes. */
const touchIntervalMs = 60_000;
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface NewSession {
  token: string;
  csrf: string;
  expiresAt: string;
}

/** The per-session CSRF token: derived from the cookie's secret, so nothing more is stored; useless without the cookie. */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`sightline-csrf:${sessionToken}`, 'utf8').digest('base64url');
}

/**
 * Stores a session for a caller that has just proven the credential. Expired sessions are swept at the same time.
 * @example const session = createSession(context, { kind: 'admin' }); // then set the cookie to session.token
 */
export function createSession(context: AppContext, caller: Caller): NewSession {
  // A user signs in with a password instead (src/users/sign-in.ts), into a session of their own.
  if (caller.kind === 'user') throw new Error('a user signs in at POST /v1/auth/login');
  const now = context.clock.now();
  const token = context.random.bytes(32).toString('base64url');
  const expiresAt = toIso(now + sessionLifetimeMs);
  deleteExpiredSessions(context.db, toIso(now), toIso(now - sessionIdleMs));
  insertSession(context.db, {
    token_hash: hashSecret(token),
    kind: caller.kind,
    admin_hash: caller.kind === 'admin' ? hashSecret(context.adminToken) : null,
    key_id: caller.kind === 'apiKey' ? caller.keyId : null,
    created_at: toIso(now),
    last_used_at: toIso(now),
    expires_at: expiresAt,
  });
  return { token, csrf: csrfTokenOf(token), expiresAt };
}

/** Ends the session of the cookie (sign-out); an unknown cookie is a no-op. */
export function endSession(context: AppContext, sessionToken: string): void {
  deleteSession(context.db, hashSecret(sessionToken));
}

/** The session cookie's value, or undefined. */
export function readSessionCookie(event: H3Event): string | undefined {
  const header = event.req.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === sessionCookieName) {
      const value = part.slice(separator + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/**
 * Whether a browser sent the request from another site: Sec-Fetch-Site says so (every current browser sends it on
 * every request), or, from a browser that does not send it, an Origin header that is not exactly the request's own
 * origin: scheme, host and port (see requestOrigin). Such a request is never authenticated by the cookie. A
 * same-site subdomain, the same host on another port or under another scheme, count as another site.
 */
export function isCrossSite(event: H3Event, context: AppContext): boolean {
  const fetchSite = event.req.headers.get('sec-fetch-site');
  if (fetchSite !== null) return fetchSite !== 'same-origin' && fetchSite !== 'none';
  const origin = event.req.headers.get('origin');
  if (origin === null) return false;
  const own = requestOrigin(event, context);
  try {
    return own === undefined || new URL(origin).origin !== own;
  } catch {
    return true;
  }
}

/**
 * The origin the browser addressed, as URL serialises it (a default port left out): the scheme of isSecureRequest,
 * and the host with its port from Host, or from X-Forwarded-Host when TRUST_PROXY is set (a proxy may rewrite Host).
 * Undefined when there is no usable host.
 * @example requestOrigin(event, context) // 'https://analytics.example.com' behind a trusted TLS proxy
 */
export function requestOrigin(event: H3Event, context: AppContext): string | undefined {
  const forwardedHost = context.config.trustProxy > 0 ? event.req.headers.get('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
  const host = forwardedHost || event.req.headers.get('host');
  if (!host) return undefined;
  try {
    return new URL(`${isSecureRequest(event, context) ? 'https' : 'http'}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/** Equal-length digests compared in constant time: a header of any length never throws. */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(hashSecret(given), hashSecret(expected));
}

/**
 * The caller the session cookie stands for, or undefined (no cookie, unknown, expired, its credential changed or
 * revoked, a cross-site request, or a mutating request without the CSRF header): the caller then gets the 401 a
 * missing bearer gets.
 */
export function sessionCallerOf(event: H3Event, context: AppContext): Caller | undefined {
  const token = acceptedSessionToken(event, context);
  if (!token) return undefined;
  const row = findLiveSession(context, token);
  if (!row) return undefined;
  const caller = callerOfRow(context, row);
  if (caller) touch(context, row);
  return caller;
}

/**
 * The session cookie's value when the request may be authenticated by it: same-site, and a mutating request carries
 * the session's CSRF header. A user's sessions (src/users/user-sessions.ts) share the cookie and these conditions.
 */
export function acceptedSessionToken(event: H3Event, context: AppContext): string | undefined {
  const token = readSessionCookie(event);
  if (!token || isCrossSite(event, context)) return undefined;
  if (!safeMethods.has(event.req.method)) {
    const csrf = event.req.headers.get(csrfHeaderName);
    if (csrf === null || !sameSecret(csrf, csrfTokenOf(token))) return undefined;
  }
  return token;
}

/** The stored session of a cookie while it lives (not past its absolute end nor idle too long). */
export function findLiveSession(context: AppContext, token: string): SessionRow | undefined {
  const row = findSessionByHash(context.db, hashSecret(token));
  if (!row) return undefined;
  const now = context.clock.now();
  if (Date.parse(row.expires_at) <= now || Date.parse(row.last_used_at) + sessionIdleMs <= now) return undefined;
  return row;
}

function callerOfRow(context: AppContext, row: SessionRow): Caller | undefined {
  if (row.kind === 'admin') {
    return row.admin_hash !== null && timingSafeEqual(row.admin_hash, hashSecret(context.adminToken)) ? { kind: 'admin' } : undefined;
  }
  if (row.key_id === null) return undefined;
  // A key revoked (or gone) since the sign-in ends its sessions too.
  const key = findKeyById(context.db, row.key_id);
  if (!key || key.revoked_at !== null) return undefined;
  return { kind: 'apiKey', keyId: key.id, workspaceId: key.workspace_id, scopes: JSON.parse(key.scopes) as Scope[] };
}

function touch(context: AppContext, row: SessionRow): void {
  const now = context.clock.now();
  if (now - Date.parse(row.last_used_at) < touchIntervalMs) return;
  // Unlike a key's last_used_at, this write decides the idle expiry: it waits for the write lock (busy timeout) rather
  // than being skipped, and it happens at most once a minute per session.
  try {
    touchSession(context.db, row.token_hash, toIso(now));
  } catch {
    // Still busy after the timeout: the request is answered all the same; a later one writes it.
  }
}

/** Secure when the request came over TLS: the URL's scheme, or X-Forwarded-Proto only when TRUST_PROXY is set. */
export function isSecureRequest(event: H3Event, context: AppContext): boolean {
  if (event.url.protocol === 'https:') return true;
  if (context.config.trustProxy === 0) return false;
  const forwarded = event.req.headers.get('x-forwarded-proto');
  return forwarded?.split(',')[0]?.trim().toLowerCase() === 'https';
}

/** Set-Cookie for a new session (no Max-Age beyond the absolute lifetime), or to clear it (`token` undefined). */
export function sessionCookie(token: string | undefined, secure: boolean): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
  if (token === undefined) return [`${sessionCookieName}=`, 'Max-Age=0', ...attributes].join('; ');
  return [`${sessionCookieName}=${token}`, `Max-Age=${sessionLifetimeMs / 1000}`, ...attributes].join('; ');
}
