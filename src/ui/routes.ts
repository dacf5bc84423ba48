// The admin UI: its files at / and /ui/* (a middleware: files, not API operations, so not in the OpenAPI document),
// with a strict Content-Security-Policy, and the session it signs in with (POST, GET and DELETE /v1/ui/session,
// documented routes).
import type { H3, H3Event } from 'h3';
import * as v from 'valibot';
import { findWorkspaceById } from '../tenants/queries/find-workspace.ts';
import type { AppContext } from '../context.ts';
import { callerOfSecret } from '../access/authenticate.ts';
import type { Caller } from '../access/caller.ts';
import { checkSecret, clientIpOf, clientKeyOf } from '../access/auth-throttle.ts';
import { readJsonBody } from '../http/body.ts';
import { ApiError, renderError } from '../http/errors.ts';
import { jsonBody, refusals, throttledCredential } from '../http/refusals.ts';
import { finishResponse, json } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { uiAssets } from './assets.ts';
import { embedOriginsOf } from './share-links.ts';
import {
  createSession,
  csrfTokenOf,
  endSession,
  findLiveSession,
  isCrossSite,
  isSecureRequest,
  readSessionCookie,
  sessionCallerOf,
  sessionCookie,
} from './session.ts';

/** No inline script or style, nothing from elsewhere, never framed (docs/admin-ui.md). */
const policyDirectives = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];
export const uiContentSecurityPolicy = policyDirectives.join('; ');

/**
 * The policy of the dashboard page opened to be embedded (GET /?embed=<share link id>): framed only by the link's
 * origins, listed one by one (never *); a link without origins, revoked or unknown keeps frame-ancestors 'none'.
 */
function embeddingPolicy(origins: readonly string[]): string {
  if (origins.length === 0) return uiContentSecurityPolicy;
  return policyDirectives.map((directive) => (directive.startsWith('frame-ancestors') ? `frame-ancestors ${origins.join(' ')}` : directive)).join('; ');
}

const uiHeaders = {
  'content-security-policy': uiContentSecurityPolicy,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};
const sessionHeaders = { ...uiHeaders, 'cache-control': 'no-store' };

const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const SignedInAnswer = v.strictObject({
  signed_in: v.literal(true),
  kind: v.picklist(['admin', 'api_key']),
  /** Sent back in X-Sightline-CSRF on every mutating request of the session. */
  csrf: v.string(),
  expires_at: IsoTime,
  workspace: v.nullable(v.strictObject({ id: v.string(), slug: v.string(), name: v.string() })),
  scopes: v.array(v.string()),
});
const SessionAnswer = v.union([SignedInAnswer, v.strictObject({ signed_in: v.literal(false) })]);
const maxTokenLength = 512;
const SignInBody = v.object({
  token: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(maxTokenLength, `must be at most ${maxTokenLength} characters`)),
});

/** The headers of the page at `/`: the embedding policy of the share link it names with ?embed=, if any. */
function pageHeaders(event: H3Event, context: AppContext): Record<string, string> {
  const linkId = event.url.searchParams.get('embed');
  const origins = linkId && /^[\w-]{1,64}$/.test(linkId) ? embedOriginsOf(context, linkId) : [];
  if (origins.length === 0) return uiHeaders;
  // X-Frame-Options has no list of origins: frame-ancestors alone decides (every current browser reads it).
  const { 'x-frame-options': _denied, ...rest } = uiHeaders;
  return { ...rest, 'content-security-policy': embeddingPolicy(origins) };
}

function serveAsset(event: H3Event, context: AppContext, path: string): Response {
  const asset = uiAssets.get(path);
  if (!asset) throw ApiError.notFound('No such file');
  const headers: Record<string, string> = {
    ...(path === '/' ? pageHeaders(event, context) : uiHeaders),
    'content-type': asset.type,
    etag: asset.etag,
    'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
  const match = event.req.headers.get('if-none-match');
  if (match !== null && match.split(',').some((tag) => tag.trim() === asset.etag)) return new Response(null, { status: 304, headers });
  return new Response(event.req.method === 'HEAD' ? null : asset.body, { headers });
}

/** What the UI needs to know about who signed in: never the credential itself. */
function describeSession(context: AppContext, caller: Caller, csrf: string, expiresAt: string): v.InferOutput<typeof SignedInAnswer> {
  if (caller.kind === 'admin') return { signed_in: true, kind: 'admin', csrf, expires_at: expiresAt, workspace: null, scopes: ['admin'] };
  // A user's session is described by GET /v1/me (src/users/); this session route knows the token sign-in only.
  if (caller.kind === 'user') throw new Error('a user session is not a token session');
  const workspace = findWorkspaceById(context.db, caller.workspaceId);
  return {
    signed_in: true,
    kind: 'api_key',
    csrf,
    expires_at: expiresAt,
    workspace: workspace ? { id: workspace.id, slug: workspace.slug, name: workspace.name } : null,
    scopes: [...caller.scopes],
  };
}

async function signIn(event: H3Event, context: AppContext): Promise<Response> {
  // A JSON body cannot be sent cross-site without a CORS preflight, which Sightline never grants; and a page of
  // another site is refused outright (login CSRF).
  if (isCrossSite(event, context)) throw ApiError.unauthorized();
  const { token } = parseBody(SignInBody, await readJsonBody(event, { limitBytes: 4096, accept: ['application/json'] }));
  // A wrong token counts against the client's address; once it is throttled, even the right one is 429 (no oracle).
  const caller = checkSecret(context, clientKeyOf(clientIpOf(event, context)), () => callerOfSecret(context, token));
  if (!caller) throw ApiError.unauthorized();
  const session = createSession(context, caller);
  const response = json(describeSession(context, caller, session.csrf, session.expiresAt), 201);
  response.headers.append('set-cookie', sessionCookie(session.token, isSecureRequest(event, context)));
  return response;
}

function currentSession(event: H3Event, context: AppContext): v.InferOutput<typeof SessionAnswer> {
  const caller = sessionCallerOf(event, context);
  const token = readSessionCookie(event);
  const row = token ? findLiveSession(context, token) : undefined;
  // Signed out is an answer, not an error: the page asks on every load, and a 401 would log a console error.
  if (!caller || !token || !row) return { signed_in: false } as const;
  return describeSession(context, caller, csrfTokenOf(token), row.expires_at);
}

function signOut(event: H3Event, context: AppContext): Response {
  // sessionCallerOf checks the CSRF header (DELETE mutates) and that the request is same-site.
  const token = readSessionCookie(event);
  if (!token || !sessionCallerOf(event, context)) throw ApiError.unauthorized();
  endSession(context, token);
  return new Response(null, { status: 204, headers: { 'set-cookie': sessionCookie(undefined, isSecureRequest(event, context)) } });
}

/** The UI's files for GET and HEAD of / and /ui/*; anything else goes on to the routes. */
function serveFiles(event: H3Event, context: AppContext): Response | undefined {
  const { pathname } = event.url;
  if ((event.req.method !== 'GET' && event.req.method !== 'HEAD') || (pathname !== '/' && !pathname.startsWith('/ui/'))) return undefined;
  try {
    return finishResponse(serveAsset(event, context, pathname));
  } catch (error) {
    const response = renderError(error, 'structured');
    for (const [name, value] of Object.entries(uiHeaders)) response.headers.set(name, value);
    return finishResponse(response);
  }
}

/**
 * @example mountUi(app, context); // GET / serves the dashboard, POST /v1/ui/session signs in
 */
export function mountUi(app: H3, context: AppContext): void {
  app.use((event, next) => serveFiles(event, context) ?? next());
  addRoute(app, {
    method: 'POST',
    path: '/ui/session',
    versionedOnly: true,
    auth: 'none',
    headers: sessionHeaders,
    refusals: refusals(jsonBody, { 401: ['unauthorized'] }, throttledCredential),
    summary: 'Admin UI: exchange the admin token or an API key for an HttpOnly session cookie (docs/admin-ui.md)',
    body: SignInBody,
    status: 201,
    answer: SignedInAnswer,
    handler: (event) => signIn(event, context),
  });
  addRoute(app, {
    method: 'GET',
    path: '/ui/session',
    versionedOnly: true,
    auth: 'none',
    headers: sessionHeaders,
    refusals: {},
    summary: 'Admin UI: the session of the cookie, with its CSRF token, or signed_in false',
    answer: SessionAnswer,
    handler: (event) => currentSession(event, context),
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/ui/session',
    versionedOnly: true,
    auth: 'none',
    headers: sessionHeaders,
    refusals: { 401: ['unauthorized'] },
    summary: 'Admin UI: sign out (needs X-Sightline-CSRF): the session is revoked and the cookie cleared',
    status: 204,
    handler: (event) => signOut(event, context),
  });
}
