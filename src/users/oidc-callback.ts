// GET /v1/auth/oidc/callback (docs/people.md "Single sign-on"): takes the sign-in under way (one use), lets
// openid-client check the state, the issuer, the code exchange and the ID token (nonce, audience, signature), requires
// a verified e-mail of an allowed domain, finds or makes the account, and signs in with a new session, like a password.
import { timingSafeEqual } from 'node:crypto';
import type { H3Event } from 'h3';
import { toIso } from '../clock.ts';
import type { OidcConfig } from '../config.ts';
import type { AppContext } from '../context.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { hashSecret } from '../tenants/api-key-token.ts';
import { findWorkspaceBySlug } from '../tenants/queries/find-workspace.ts';
import { isSecureRequest, sessionCookie } from '../ui/session.ts';
import { recordAccountAudit } from './account-audit.ts';
import { normaliseEmail } from './accounts.ts';
import { joinByInvitation } from './invitations.ts';
import { client, oidcClientOf } from './oidc-client.ts';
import { oidcCookie, readOidcCookie, redirect, requireOidc, SsoRefusal } from './oidc-sign-in.ts';
import { publicBaseOf } from './public-base.ts';
import { pendingInvitationsOfEmail } from './queries/invitation-rows.ts';
import { findMembership, insertMembership } from './queries/membership-rows.ts';
import { takeOidcSignIn } from './queries/oidc-sign-in-rows.ts';
import { findUserByEmail, findUserById, findUserBySsoSubject, insertUser, setUserLogin, setUserSsoSubject, type UserRow } from './queries/user-rows.ts';
import { createUserSession } from './user-sessions.ts';

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

interface Identity {
  subject: string;
  email: string;
  name: string;
}

/** The provider's word on who signed in: code exchange, ID token and, when the token lacks the e-mail, UserInfo. */
async function identityOf(event: H3Event, context: AppContext, oidc: OidcConfig, pending: { state: string; nonce: string; code_verifier: string; redirect_uri: string }): Promise<Identity> {
  const returned = new URL(event.req.url);
  if (returned.searchParams.has('error')) throw new SsoRefusal('sso_refused');
  if (!sameText(returned.searchParams.get('state') ?? '', pending.state)) throw new SsoRefusal('invalid_state');
  // The URL the provider redirected to, as registered: the code exchange sends it as redirect_uri.
  const currentUrl = new URL(pending.redirect_uri);
  currentUrl.search = returned.search;
  let claims: Record<string, unknown>;
  try {
    const configuration = await oidcClientOf(context, oidc);
    const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: pending.code_verifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims()!;
    claims = { ...idClaims };
    // Many providers put the e-mail in the ID token; a conforming one may keep it to UserInfo.
    if (typeof idClaims.email !== 'string' || idClaims.email_verified === undefined) {
      claims = { ...(await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub)), ...idClaims };
    }
  } catch {
    throw new SsoRefusal('sso_failed');
  }
  const email = typeof claims.email === 'string' ? normaliseEmail(claims.email) : '';
  // Only true is a verification: a missing claim or the string "true" is not.
  if (email === '' || claims.email_verified !== true) throw new SsoRefusal('email_unverified');
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (oidc.allowedDomains.length > 0 && !oidc.allowedDomains.includes(domain)) throw new SsoRefusal('domain_not_allowed');
  return { subject: `${oidc.issuer} ${String(claims.sub)}`, email, name: typeof claims.name === 'string' ? claims.name.slice(0, 200) : '' };
}

/**
 * The account of the identity: the one linked to it, else the one of its e-mail (the same person: linked now),
 * else a new one when a pending invitation or OIDC_WORKSPACE lets it in. Call inside a write transaction.
 */
function accountOf(context: AppContext, oidc: OidcConfig, identity: Identity): UserRow {
  const now = toIso(context.clock.now());
  const linked = findUserBySsoSubject(context.db, identity.subject);
  const user = linked ?? findUserByEmail(context.db, identity.email);
  if (user) {
    if (user.disabled_at !== null) throw new SsoRefusal('account_disabled', user.id);
    if (user.sso_subject !== null && user.sso_subject !== identity.subject) throw new SsoRefusal('account_conflict', user.id);
    if (user.sso_subject === null) {
      setUserSsoSubject(context.db, user.id, identity.subject);
      recordAccountAudit(context, { actor: { kind: 'user', id: user.id }, action: 'user.update', userId: user.id, metadata: { fields: ['sso'] } });
    }
    return findUserById(context.db, user.id)!;
  }
  const invitations = pendingInvitationsOfEmail(context.db, identity.email, now);
  const workspace = oidc.workspace === undefined ? undefined : findWorkspaceBySlug(context.db, oidc.workspace);
  if (invitations.length === 0 && !workspace) throw new SsoRefusal('not_invited');
  const userId = context.random.uuid();
  insertUser(context.db, { id: userId, email: identity.email, name: identity.name, password_hash: null, operator: 0, created_at: now });
  setUserSsoSubject(context.db, userId, identity.subject);
  recordAccountAudit(context, { actor: { kind: 'anonymous' }, action: 'user.create', userId, metadata: { operator: false, sso: true, invitations: invitations.map((row) => row.id) } });
  for (const invitation of invitations) joinByInvitation(context, invitation, userId);
  if (workspace && !findMembership(context.db, workspace.id, userId)) {
    insertMembership(context.db, { workspace_id: workspace.id, user_id: userId, role: oidc.defaultRole, created_at: now });
    recordAudit(context, { workspaceId: workspace.id, actor: { kind: 'user', id: userId }, action: 'member.add', target: userId, metadata: { role: oidc.defaultRole, sso: true } });
  }
  return findUserById(context.db, userId)!;
}

/**
 * GET /v1/auth/oidc/callback: signs in and redirects to the UI with the session cookie (a new session), or redirects
 * to the UI's sign-in page with `sso_error=<code>` in the fragment. Either way the sign-in under way is used up.
 */
export async function finishOidcSignIn(event: H3Event, context: AppContext): Promise<Response> {
  const oidc = requireOidc(context);
  const base = publicBaseOf(event, context);
  const secure = isSecureRequest(event, context);
  const clearOidcCookie = oidcCookie(undefined, secure);
  try {
    const id = readOidcCookie(event);
    const pending = id === undefined ? undefined : inWriteTransaction(context.db, () => takeOidcSignIn(context.db, hashSecret(id)));
    if (!pending || Date.parse(pending.expires_at) <= context.clock.now()) throw new SsoRefusal('sso_expired');
    const identity = await identityOf(event, context, oidc, pending);
    const session = inWriteTransaction(context.db, () => {
      const user = accountOf(context, oidc, identity);
      setUserLogin(context.db, user.id, toIso(context.clock.now()));
      const created = createUserSession(context, user.id, event.req.headers.get('user-agent') ?? '');
      recordAccountAudit(context, { actor: { kind: 'user', id: user.id }, action: 'login.success', userId: user.id, metadata: { method: 'sso', session_id: created.id } });
      return created;
    });
    // The UI's landing for a new person session (docs/admin-ui.md): it then asks GET /v1/me.
    return redirect(`${base}/#/signed-in`, [clearOidcCookie, sessionCookie(session.token, secure)]);
  } catch (error) {
    if (!(error instanceof SsoRefusal)) throw error;
    inWriteTransaction(context.db, () =>
      recordAccountAudit(context, { actor: { kind: 'anonymous' }, action: 'login.failure', userId: error.userId, metadata: { method: 'sso', reason: error.code } }),
    );
    return redirect(`${base}/#/sign-in?sso_error=${error.code}`, [clearOidcCookie]);
  }
}
