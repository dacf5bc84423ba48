// Single sign-on's shared pieces (CONTRACT 9, docs/people.md "Single sign-on"): the sign-in under way's cookie
// (a random id whose SHA-256 names the server-side row holding the PKCE verifier, state and nonce), its lifetime and
// caps, the refusal codes the UI's sign-in page reads, and the redirects both routes answer with.
import type { H3Event } from 'h3';
import type { OidcConfig } from '../config.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';

export const oidcCookieName = 'sightline_oidc';
/** A sign-in started at the provider must come back within this long (refused from that millisecond on). */
export const oidcSignInLifetimeMs = 10 * 60 * 1000;
export const oidcCallbackPath = '/v1/auth/oidc/callback';
/**
 * Sign-ins under way at most, per client address and on the server: each start stores a row for 10 minutes, and the
 * route is public. An office behind one address can start 100 in 10 minutes; past a cap, 429 rate_limited.
 */
export const maxOidcSignInsPerClient = 100;
export const maxOidcSignIns = 10_000;

/**
 * Why a single sign-on was refused: the code the UI's sign-in page finds in its fragment
 * (`/#/sign-in?sso_error=<code>`, docs/people.md).
 */
export const ssoErrorCodes = [
  'sso_expired', // no sign-in under way for this browser: no cookie, an unknown, used or expired one
  'invalid_state', // the state sent back is not the one this browser's sign-in started with
  'sso_refused', // the provider answered with an error (the person cancelled, or the provider refused)
  'sso_failed', // the code exchange or the ID token did not pass (a replayed code, a wrong nonce, an unreachable provider)
  'email_unverified', // the provider does not vouch for the e-mail (email_verified is not true)
  'domain_not_allowed', // the e-mail's domain is not in OIDC_ALLOWED_DOMAINS
  'not_invited', // no account, no pending invitation, and no OIDC_WORKSPACE for first sign-ins
  'account_disabled',
  'account_conflict', // the e-mail's account is linked to another account of the provider
] as const;
export type SsoErrorCode = (typeof ssoErrorCodes)[number];

/** Thrown by the callback's steps; rendered as a redirect to the sign-in page with the code. */
export class SsoRefusal extends Error {
  constructor(
    readonly code: SsoErrorCode,
    readonly userId: string | null = null,
  ) {
    super(code);
  }
}

/** The SSO settings, or 404 not_found: without OIDC_ISSUER the routes do not exist. */
export function requireOidc(context: AppContext): OidcConfig {
  if (!context.config.oidc) throw ApiError.notFound('Single sign-on is not configured');
  return context.config.oidc;
}

export function oidcCookie(id: string | undefined, secure: boolean): string {
  const attributes = ['Path=/v1/auth/oidc', 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  return id === undefined ? [`${oidcCookieName}=`, 'Max-Age=0', ...attributes].join('; ') : [`${oidcCookieName}=${id}`, `Max-Age=${oidcSignInLifetimeMs / 1000}`, ...attributes].join('; ');
}

export function readOidcCookie(event: H3Event): string | undefined {
  for (const part of (event.req.headers.get('cookie') ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === oidcCookieName) {
      const value = part.slice(separator + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function redirect(location: string, cookies: string[]): Response {
  const response = new Response(`See ${location}\n`, { status: 303, headers: { location, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
  for (const cookie of cookies) response.headers.append('set-cookie', cookie);
  return response;
}
