// Single sign-on's routes (CONTRACT 9, docs/people.md "Single sign-on"), in the structured envelope of /v1/auth:
// what the sign-in page may offer, the start (a redirect to the provider) and the provider's redirect back.
import type { H3 } from 'h3';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { addRoute } from '../http/routes.ts';
import { finishOidcSignIn } from './oidc-callback.ts';
import { startOidcSignIn } from './oidc-start.ts';

const noStore = { 'cache-control': 'no-store' };

export function mountSingleSignOn(app: H3, context: AppContext): void {
  addRoute(app, {
    method: 'GET',
    path: '/auth/options',
    versionedOnly: true,
    auth: 'none',
    headers: noStore,
    refusals: {},
    summary: 'How people may sign in: with a password always, with single sign-on when OIDC_ISSUER is configured (public)',
    answer: v.strictObject({ password: v.literal(true), sso: v.boolean() }),
    handler: () => ({ password: true as const, sso: context.config.oidc !== undefined }),
  });
  addRoute(app, {
    method: 'GET',
    path: '/auth/oidc/start',
    versionedOnly: true,
    auth: 'none',
    headers: noStore,
    refusals: { 404: ['not_found'], 429: ['rate_limited'], 502: ['sso_unavailable'] },
    summary: 'Start single sign-on: 303 to the identity provider (PKCE S256, state, nonce), with a 10-minute cookie naming this sign-in; 404 when SSO is not configured, 429 past 100 sign-ins under way from one address',
    status: 303,
    produces: 'text/plain',
    handler: (event) => startOidcSignIn(event, context),
  });
  addRoute(app, {
    method: 'GET',
    path: '/auth/oidc/callback',
    versionedOnly: true,
    auth: 'none',
    headers: noStore,
    refusals: { 404: ['not_found'] },
    summary: 'Where the identity provider sends the browser back: 303 to the UI (/#/signed-in) with the session cookie (a new session), or to /#/sign-in?sso_error=<code>',
    status: 303,
    produces: 'text/plain',
    query: [
      { name: 'code', description: 'The authorization code (from the provider)' },
      { name: 'state', description: 'The state the sign-in started with (from the provider)' },
      { name: 'iss', description: 'The issuer (RFC 9207, from the provider)' },
      { name: 'error', description: 'The provider\'s refusal, instead of a code' },
    ],
    handler: (event) => finishOidcSignIn(event, context),
  });
}
