// The admin UI: its files at / and /ui/*, with a strict Content-Security-Policy, and the session it signs in with
// (POST, GET and DELETE /ui/session). Not part of the versioned API: mounted with h3 directly, out of the OpenAPI
// document, refusals in the structured envelope.
import type { H3, H3Event } from 'h3';
import { findWorkspaceById } from '../admin/queries/find-workspace.ts';
import type { AppContext } from '../context.ts';
import { authenticateApiKey, type Caller, isAdminToken } from '../http/auth.ts';
import { readJsonBody } from '../http/body.ts';
import { ApiError, renderError } from '../http/errors.ts';
import { finishResponse, json } from '../http/respond.ts';
import { uiAssets } from './assets.ts';
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
export const uiContentSecurityPolicy = [
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
].join('; ');

const uiHeaders = {
  'content-security-policy': uiContentSecurityPolicy,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};
const sessionHeaders = { ...uiHeaders, 'cache-control': 'no-store' };
const maxTokenLength = 512;

type Handler = (event: H3Event) => Response | Promise<Response>;

/** Errors in the structured envelope, and the headers every answer gets. */
function handled(handler: Handler): Handler {
  return async (event) => {
    let response: Response;
    try {
      response = await handler(event);
    } catch (error) {
      response = renderError(error, 'structured');
      for (const [name, value] of Object.entries(sessionHeaders)) response.headers.set(name, value);
    }
    return finishResponse(response);
  };
}

function serveAsset(event: H3Event, path: string): Response {
  const asset = uiAssets.get(path);
  if (!asset) throw ApiError.notFound('No such file');
  const headers: Record<string, string> = {
    ...uiHeaders,
    'content-type': asset.type,
    etag: asset.etag,
    'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
  const match = event.req.headers.get('if-none-match');
  if (match !== null && match.split(',').some((tag) => tag.trim() === asset.etag)) return new Response(null, { status: 304, headers });
  return new Response(event.req.method === 'HEAD' ? null : asset.body, { headers });
}

/** What the UI needs to know about who signed in: never the credential itself. */
function describeSession(context: AppContext, caller: Caller, csrf: string, expiresAt: string) {
  if (caller.kind === 'admin') return { signed_in: true, kind: 'admin', csrf, expires_at: expiresAt, workspace: null, scopes: ['admin'] };
  const workspace = findWorkspaceById(context.db, caller.workspaceId);
  return {
    signed_in: true,
    kind: 'api_key',
    csrf,
    expires_at: expiresAt,
    workspace: workspace ? { id: workspace.id, slug: workspace.slug, name: workspace.name } : null,
    scopes: caller.scopes,
  };
}

async function signIn(event: H3Event, context: AppContext): Promise<Response> {
  // A JSON body cannot be sent cross-site without a CORS preflight, which Sightline never grants; and a page of
  // another site is refused outright (login CSRF).
  if (isCrossSite(event)) throw ApiError.unauthorized();
  const body = await readJsonBody(event, { limitBytes: 4096, accept: ['application/json'] });
  const token = typeof body === 'object' && body !== null && 'token' in body ? body.token : undefined;
  if (typeof token !== 'string' || token.length === 0 || token.length > maxTokenLength) {
    throw ApiError.invalidPayload([{ path: '/token', message: `must be a string of 1-${maxTokenLength} characters` }]);
  }
  const caller: Caller | undefined = isAdminToken(context, token) ? { kind: 'admin' } : authenticateApiKey(context, token);
  if (!caller) throw ApiError.unauthorized();
  const session = createSession(context, caller);
  const response = json(describeSession(context, caller, session.csrf, session.expiresAt), 201, sessionHeaders);
  response.headers.append('set-cookie', sessionCookie(session.token, isSecureRequest(event, context)));
  return response;
}

function currentSession(event: H3Event, context: AppContext): Response {
  const caller = sessionCallerOf(event, context);
  const token = readSessionCookie(event);
  const row = token ? findLiveSession(context, token) : undefined;
  // Signed out is an answer, not an error: the page asks on every load, and a 401 would log a console error.
  if (!caller || !token || !row) return json({ signed_in: false }, 200, sessionHeaders);
  return json(describeSession(context, caller, csrfTokenOf(token), row.expires_at), 200, sessionHeaders);
}

function signOut(event: H3Event, context: AppContext): Response {
  // sessionCallerOf checks the CSRF header (DELETE mutates) and that the request is same-site.
  const token = readSessionCookie(event);
  if (!token || !sessionCallerOf(event, context)) throw ApiError.unauthorized();
  endSession(context, token);
  return new Response(null, { status: 204, headers: { ...sessionHeaders, 'set-cookie': sessionCookie(undefined, isSecureRequest(event, context)) } });
}

/**
 * @example mountUi(app, context); // GET / serves the dashboard, POST /ui/session signs in
 */
export function mountUi(app: H3, context: AppContext): void {
  app.on('POST', '/ui/session', handled((event) => signIn(event, context)));
  app.on('GET', '/ui/session', handled((event) => currentSession(event, context)));
  app.on('DELETE', '/ui/session', handled((event) => signOut(event, context)));
  app.on('GET', '/', handled((event) => serveAsset(event, '/')));
  app.on('GET', '/ui/**', handled((event) => serveAsset(event, event.url.pathname)));
}
