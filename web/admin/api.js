// Every request of the UI: same-origin with the session cookie, the CSRF header on mutating requests, and every
// JSON answer checked against the schema the server publishes (GET /v1/schemas) before anything is shown.
import { signal } from '@preact/signals';
import { mismatchOf } from './validate.js';

/**
 * undefined while loading, null when signed out, else the session (kind, csrf, workspace, scopes, expires_at), or
 * { kind: 'share', token } when the page was opened from a share link (/?site=…#share=shr_…).
 */
export const session = signal(undefined);

/** The share token of a shared dashboard's URL fragment (never sent to the server in the URL). */
export function shareTokenOfPage() {
  return /^#share=(shr_[A-Za-z0-9_-]{43})$/.exec(location.hash)?.[1];
}

/** Whether the signed-in session may use a scope: the admin token, a key with admin, or a key with that scope. */
export function hasScope(scope) {
  const current = session.value;
  if (!current || current.kind === 'share') return false;
  return current.kind === 'admin' || current.scopes.includes('admin') || current.scopes.includes(scope);
}

export class ApiFailure extends Error {
  constructor(message, status = 0, code = '', rows = [], details = []) {
    super(details.length > 0 ? `${message}: ${details.map((detail) => `${detail.path || 'the body'} ${detail.message}`).join('; ')}` : message);
    this.status = status;
    this.code = code;
    /** Per-line problems of a refused file (the flat envelope's rows: [{ line, message }]). */
    this.rows = rows;
    /** Per-field problems of a refused body ([{ path, message }], either envelope), named in the message too. */
    this.details = details;
  }
}

let schemas;
function loadSchemas() {
  schemas ??= fetch('/v1/schemas', { headers: { accept: 'application/json' } }).then((response) => {
    if (!response.ok) throw new ApiFailure('The server\'s schemas could not be read', response.status);
    return response.json();
  });
  schemas.catch(() => (schemas = undefined));
  return schemas;
}

/** The catalog key of a route: "GET /v1/sites/{siteId}/reports/summary-v2". */
export const schemaKey = (method, template) => `${method} /v1${template}`;

/** Either envelope: structured { error: { code, message } } or flat { error: code, message, rows? }. */
async function errorOf(response) {
  try {
    const body = await response.json();
    const flat = typeof body.error === 'string';
    const message = flat ? body.message : body.error?.message;
    const code = flat ? body.error : body.error?.code;
    const rows = Array.isArray(body.rows) ? body.rows : [];
    const listed = flat ? body.details : body.error?.details;
    const details = Array.isArray(listed) ? listed.filter((detail) => typeof detail?.path === 'string' && typeof detail.message === 'string') : [];
    return new ApiFailure(typeof message === 'string' ? message : response.statusText, response.status, typeof code === 'string' ? code : '', rows, details);
  } catch {
    return new ApiFailure(response.statusText || `HTTP ${response.status}`, response.status);
  }
}

/**
 * @param {string} path the request path and query
 * @param {{ method?: string, body?: unknown, text?: { type: string, body: string }, schema?: string, headers?: object }} options
 *   body: sent as JSON; text: sent as it is with its type; schema: the catalog key to check the answer against;
 *   headers: more request headers (X-Workspace-Id)
 */
export async function api(path, { method = 'GET', body, text, schema, headers: extra = {} } = {}) {
  const headers = { ...extra, accept: 'application/json' };
  if (session.value?.kind === 'share') headers.authorization = `Share ${session.value.token}`;
  if (method !== 'GET') headers['x-sightline-csrf'] = session.value?.csrf ?? '';
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (text !== undefined) headers['content-type'] = text.type;
  const payload = text !== undefined ? text.body : body === undefined ? undefined : JSON.stringify(body);
  const response = await fetch(path, { method, headers, credentials: 'same-origin', body: payload });
  if (response.status === 401 && !path.startsWith('/v1/ui/session') && session.value?.kind !== 'share') session.value = null;
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return null;
  const answer = await response.json();
  if (schema) {
    const catalog = await loadSchemas();
    const published = catalog[schema];
    if (!published) throw new ApiFailure(`No published schema for ${schema}`);
    const mismatch = mismatchOf(published, answer);
    if (mismatch) throw new ApiFailure(`The answer does not match the published schema (${mismatch}); not shown`);
  }
  return answer;
}

export async function signIn(token) {
  session.value = await api('/v1/ui/session', { method: 'POST', body: { token } });
}

export async function signOut() {
  try {
    await api('/v1/ui/session', { method: 'DELETE' });
  } finally {
    session.value = null;
  }
}

export async function loadSession() {
  const shareToken = shareTokenOfPage();
  if (shareToken) {
    session.value = { kind: 'share', token: shareToken };
    return;
  }
  try {
    const answer = await api('/v1/ui/session');
    session.value = answer.signed_in ? answer : null;
  } catch {
    session.value = null;
  }
}

/**
 * A form or button handler: prevents the default action, clears the error, runs `action` and shows its failure.
 * @example onSubmit={reporting(setError, () => api(path, { method: 'POST', body }))}
 */
export function reporting(setError, action) {
  return async (event) => {
    event?.preventDefault?.();
    setError('');
    try {
      await action();
    } catch (failure) {
      setError(failure.message);
    }
  };
}
