// @ts-check
// Every request of the UI: same-origin with the session cookie, the CSRF header on mutating requests, and every
// JSON answer checked against the schema the server publishes (GET /v1/schemas) before anything is shown.
import { signal } from '@preact/signals';
import { mismatchOf } from './validate.js';
/** @import { Answers, Detail, JsonSchema, Me, Role, RowProblem, SchemaKey, Session, SessionAnswer, TokenSession, UserSession } from './types.js' */

/**
 * undefined while loading, null when signed out, else the session: a token's (kind admin or api_key: csrf,
 * workspace, scopes, expires_at), a person's (kind user: GET /v1/me's answer), or { kind: 'share', token } when the
 * page was opened from a share link (/?site=…#share=shr_…).
 */
export const session = signal(/** @type {Session | null | undefined} */ (undefined));

/** The signed-in session; only called where one is shown (the sign-in page and shared dashboards have none). */
export function signedIn() {
  const current = session.value;
  if (!current || current.kind === 'share') throw new Error('No signed-in session');
  return current;
}

/** The share token of a shared dashboard's URL fragment (never sent to the server in the URL). */
export function shareTokenOfPage() {
  return /^#share=(shr_[A-Za-z0-9_-]{43})$/.exec(location.hash)?.[1];
}

/** What each role may use, as the access resolver reads it (docs/people.md): a viewer reads the dashboards only. */
/** @type {Record<Role, string[]>} */
const scopesOfRole = { owner: ['admin'], admin: ['admin'], analyst: ['query:read'], viewer: [] };

/**
 * The role the signed-in session acts with in a workspace: owner for the admin token and operators, admin for a key
 * with the admin scope in its workspace, a person's membership; undefined: none.
 * @param {string} slug
 * @returns {Role | undefined}
 */
export function roleIn(slug) {
  const current = session.value;
  if (!current || current.kind === 'share') return undefined;
  if (current.kind === 'admin') return 'owner';
  if (current.kind === 'user') return current.user.operator ? 'owner' : current.workspaces.find((workspace) => workspace.slug === slug)?.role;
  return current.workspace?.slug === slug && current.scopes.includes('admin') ? 'admin' : undefined;
}

/**
 * Whether the signed-in session may use a scope: the admin token, a key with admin, or a key with that scope; a
 * person by their role in `slug`, or without one by their lowest role (a panel is never offered where it would be
 * refused).
 * @param {string} scope
 * @param {string} [slug]
 */
export function hasScope(scope, slug) {
  const current = session.value;
  if (!current || current.kind === 'share') return false;
  if (current.kind === 'user') {
    if (current.user.operator) return true;
    const roles = slug === undefined ? current.workspaces.map((workspace) => workspace.role) : current.workspaces.filter((workspace) => workspace.slug === slug).map((workspace) => workspace.role);
    return roles.length > 0 && roles.every((role) => scopesOfRole[role].includes('admin') || scopesOfRole[role].includes(scope));
  }
  return current.kind === 'admin' || current.scopes.includes('admin') || current.scopes.includes(scope);
}

export class ApiFailure extends Error {
  /**
   * @param {string} message
   * @param {number} [status] the HTTP status (0: no answer, or an answer the UI refused)
   * @param {string} [code] the envelope's error code
   * @param {RowProblem[]} [rows]
   * @param {Detail[]} [details]
   */
  constructor(message, status = 0, code = '', rows = [], details = []) {
    super(details.length > 0 ? `${message}: ${details.map((detail) => `${detail.path || 'the body'} ${detail.message}`).join('; ')}` : message);
    this.status = status;
    this.code = code;
    /** Per-line problems of a refused file (the flat envelope's rows: [{ line, message }]). */
    this.rows = rows;
    /** Per-field problems of a refused body ([{ path, message }], either envelope), named in the message too. */
    this.details = details;
    /** Seconds to wait before trying again (a 429's Retry-After), else undefined. */
    this.retryAfter = /** @type {number | undefined} */ (undefined);
  }
}

/** @type {Promise<Record<string, JsonSchema>> | undefined} */
let schemas;
function loadSchemas() {
  const loading = (schemas ??= fetch('/v1/schemas', { headers: { accept: 'application/json' } }).then((response) => {
    if (!response.ok) throw new ApiFailure('The server\'s schemas could not be read', response.status);
    return response.json();
  }));
  loading.catch(() => (schemas = undefined));
  return loading;
}

/**
 * The schema the server publishes for a catalog key (GET /v1/schemas, read once), or undefined.
 * @param {SchemaKey} key
 */
export async function publishedSchema(key) {
  return (await loadSchemas())[key];
}

/**
 * The catalog key of a route: "GET /v1/sites/{siteId}/reports/summary-v2".
 * @template {string} Method
 * @template {string} Template
 * @param {Method} method
 * @param {Template} template
 * @returns {`${Method} /v1${Template}`}
 */
export const schemaKey = (method, template) => `${method} /v1${template}`;

/**
 * A refusal's body as far as it is read: every field is checked before it is used.
 * @typedef {{ error?: string | { code?: unknown, message?: unknown, details?: unknown }, message?: unknown, rows?: RowProblem[], details?: unknown }} ErrorBody
 */

/**
 * Either envelope: structured { error: { code, message } } or flat { error: code, message, rows? }.
 * @param {Response} response
 */
async function errorOf(response) {
  const failure = await failureOf(response);
  const retryAfter = Number(response.headers.get('retry-after') ?? '');
  if (response.headers.has('retry-after') && Number.isFinite(retryAfter) && retryAfter >= 0) failure.retryAfter = retryAfter;
  return failure;
}

/** @param {Response} response */
async function failureOf(response) {
  try {
    /** @type {ErrorBody} */
    const body = await response.json();
    const { error } = body;
    // A string error is the flat envelope's code; an object, the structured envelope's error.
    const message = typeof error === 'string' ? body.message : error?.message;
    const code = typeof error === 'string' ? error : error?.code;
    const rows = Array.isArray(body.rows) ? body.rows : [];
    const listed = typeof error === 'string' ? body.details : error?.details;
    /** @type {Detail[]} */
    const details = Array.isArray(listed) ? listed.filter((detail) => typeof detail?.path === 'string' && typeof detail.message === 'string') : [];
    return new ApiFailure(typeof message === 'string' ? message : response.statusText, response.status, typeof code === 'string' ? code : '', rows, details);
  } catch {
    return new ApiFailure(response.statusText || `HTTP ${response.status}`, response.status);
  }
}

/**
 * @typedef {object} RequestOptions
 * @property {string} [method]
 * @property {unknown} [body] sent as JSON
 * @property {{ type: string, body: string | Blob }} [text] sent as it is, with its type (a Blob: a file, streamed)
 * @property {Record<string, string>} [headers] more request headers (X-Workspace-Id, X-Import-Format)
 */

/**
 * A request whose answer is checked against the schema published for `schema` (its catalog key) before it is
 * returned, so the answer has that route's type.
 * @template {SchemaKey} Key
 * @overload
 * @param {string} path the request path and query
 * @param {RequestOptions & { schema: Key }} options
 * @returns {Promise<Answers[Key]>}
 */
/**
 * A request whose answer is not checked (null for a 204): the caller reads nothing of it, or checks it itself.
 * @overload
 * @param {string} path
 * @param {RequestOptions & { schema?: undefined }} [options]
 * @returns {Promise<unknown>}
 */
/**
 * @param {string} path
 * @param {RequestOptions & { schema?: SchemaKey }} [options]
 * @returns {Promise<unknown>}
 */
export async function api(path, { method = 'GET', body, text, schema, headers: extra = {} } = {}) {
  /** @type {Record<string, string>} */
  const headers = { ...extra, accept: 'application/json' };
  const current = session.value;
  if (current?.kind === 'share') headers.authorization = `Share ${current.token}`;
  // A shared dashboard has no CSRF token (and sends no mutation): the header is then empty.
  if (method !== 'GET') headers['x-sightline-csrf'] = current && current.kind !== 'share' ? current.csrf : '';
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (text !== undefined) headers['content-type'] = text.type;
  const payload = text !== undefined ? text.body : body === undefined ? undefined : JSON.stringify(body);
  const response = await fetch(path, { method, headers, credentials: 'same-origin', body: payload });
  if (!response.ok) {
    const failure = await errorOf(response);
    // Only a missing or ended session signs out: a wrong password or code (invalid_credentials, totp_required) is a
    // refusal of that request.
    if (response.status === 401 && (failure.code === 'unauthorized' || failure.code === '') && !path.startsWith('/v1/ui/session') && session.value?.kind !== 'share') signedOut();
    throw failure;
  }
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

// A person's session shares the token session's cookie, which scripts cannot read, and GET /v1/ui/session knows
// the token sessions only: this flag (no secret) says GET /v1/me is worth asking, so a signed-out page load asks
// nothing that answers 401 (the browser would log it as a console error).
const personFlag = 'sightline-person';
/** Where the SSO callback lands (docs/admin-ui.md): a person's session may have just begun. */
const ssoLanding = '#/signed-in';

function signedOut() {
  localStorage.removeItem(personFlag);
  session.value = null;
}

/**
 * Signs in with the admin token or an API key.
 * @param {string} token
 */
export async function signIn(token) {
  // The session's answers are not checked against the catalog (the sign-in page would wait for GET /v1/schemas).
  session.value = /** @type {TokenSession} */ (await api('/v1/ui/session', { method: 'POST', body: { token } }));
  localStorage.removeItem(personFlag);
}

/** @param {Me} me */
function becomePerson(me) {
  localStorage.setItem(personFlag, '1');
  /** @type {UserSession} */
  const current = { ...me, kind: 'user' };
  session.value = current;
}

/**
 * Signs a person in: 401 totp_required asks for `totp` (a current code or a recovery code), 429 for patience.
 * @param {{ email: string, password: string, totp?: string }} credentials
 */
export async function signInWithPassword(credentials) {
  becomePerson(/** @type {Me} */ (await api('/v1/auth/login', { method: 'POST', body: credentials })));
}

/** Reads the person's session again (after a change of name or second factor: totp_setup_required may change). */
export async function reloadMe() {
  becomePerson(/** @type {Me} */ (await api('/v1/me')));
}

export async function signOut() {
  try {
    if (session.value?.kind === 'user') await api('/v1/auth/logout', { method: 'POST' });
    else await api('/v1/ui/session', { method: 'DELETE' });
  } finally {
    signedOut();
  }
}

export async function loadSession() {
  const shareToken = shareTokenOfPage();
  if (shareToken) {
    session.value = { kind: 'share', token: shareToken };
    return;
  }
  try {
    const answer = /** @type {SessionAnswer} */ (await api('/v1/ui/session'));
    if (answer.signed_in) {
      session.value = answer;
      return;
    }
    if (localStorage.getItem(personFlag) === null && location.hash !== ssoLanding) {
      session.value = null;
      return;
    }
    if (location.hash === ssoLanding) history.replaceState(null, '', `${location.pathname}${location.search}`);
    await reloadMe();
  } catch {
    signedOut();
  }
}

/**
 * Whether the server offers single sign-on (GET /v1/auth/options; a server without that route: no). The catalog
 * says first whether the route exists, so a server without it is not asked (its 404 would be a console error).
 * @returns {Promise<boolean>}
 */
export async function ssoOffered() {
  if (!(await loadSchemas())['GET /v1/auth/options']) return false;
  const response = await fetch('/v1/auth/options', { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  if (!response.ok) return false;
  /** @type {{ sso?: unknown }} */
  const options = await response.json();
  return options.sso === true;
}

/**
 * A form or button handler: prevents the default action, clears the error, runs `action` and shows its failure.
 * @example onSubmit={reporting(setError, () => api(path, { method: 'POST', body }))}
 * @param {(message: string) => void} setError
 * @param {() => Promise<unknown>} action
 * @returns {(event?: Event) => Promise<void>}
 */
export function reporting(setError, action) {
  return async (event) => {
    event?.preventDefault?.();
    setError('');
    try {
      await action();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
}

/**
 * The message of a failure to show: an Error's (ApiFailure's included), else the thrown value as text.
 * @param {unknown} failure
 */
export function messageOf(failure) {
  return failure instanceof Error ? failure.message : String(failure);
}
