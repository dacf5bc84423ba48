// GET /v1/auth/oidc/start (docs/people.md "Single sign-on"): a new sign-in under way (PKCE S256 verifier, state and
// nonce kept server-side under the SHA-256 of a random id that only a short-lived SameSite=Lax cookie holds), capped
// per address and on the server, and the redirect to the provider's authorization endpoint.
import type { H3Event } from 'h3';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { clientIpOf, clientKeyOf } from '../access/auth-throttle.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { hashSecret } from '../tenants/api-key-token.ts';
import { isSecureRequest } from '../ui/session.ts';
import { client, oidcClientOf } from './oidc-client.ts';
import { maxOidcSignIns, maxOidcSignInsPerClient, oidcCallbackPath, oidcCookie, oidcSignInLifetimeMs, redirect, requireOidc } from './oidc-sign-in.ts';
import { publicBaseOf } from './public-base.ts';
import { countOidcSignIns, countOidcSignInsOfClient, deleteExpiredOidcSignIns, insertOidcSignIn } from './queries/oidc-sign-in-rows.ts';

/** GET /v1/auth/oidc/start: a new sign-in under way, and the redirect to the provider's authorization endpoint. */
export async function startOidcSignIn(event: H3Event, context: AppContext): Promise<Response> {
  const oidc = requireOidc(context);
  const base = publicBaseOf(event, context);
  let configuration: client.Configuration;
  try {
    configuration = await oidcClientOf(context, oidc);
  } catch {
    throw new ApiError(502, 'sso_unavailable', 'The identity provider could not be reached or its discovery document is invalid');
  }
  const id = context.random.bytes(32).toString('base64url');
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const redirectUri = `${base}${oidcCallbackPath}`;
  const now = context.clock.now();
  const clientKey = clientKeyOf(clientIpOf(event, context));
  inWriteTransaction(context.db, () => {
    deleteExpiredOidcSignIns(context.db, toIso(now));
    if (countOidcSignInsOfClient(context.db, clientKey) >= maxOidcSignInsPerClient || countOidcSignIns(context.db) >= maxOidcSignIns) {
      throw new ApiError(429, 'rate_limited', 'Too many sign-ins under way; retry in a few minutes', undefined, { 'retry-after': String(oidcSignInLifetimeMs / 1000) });
    }
    insertOidcSignIn(context.db, {
      client_key: clientKey,
      id_hash: hashSecret(id),
      state,
      nonce,
      code_verifier: codeVerifier,
      redirect_uri: redirectUri,
      created_at: toIso(now),
      expires_at: toIso(now + oidcSignInLifetimeMs),
    });
  });
  const authorizationUrl = client.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return redirect(authorizationUrl.href, [oidcCookie(id, isSecureRequest(event, context))]);
}
