// People (CONTRACT section 9, docs/people.md): sign-in and sign-out (/v1/auth), one's own account, sessions and
// second factor (/v1/me), in the structured envelope; a workspace's members (/v1/workspaces/:slug/members), in the
// flat one like every workspace route.
import { type H3, type H3Event } from 'h3';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { actorOf } from '../audit/record-audit.ts';
import { resolveWorkspace } from '../access/resolve-access.ts';
import { readJsonBody } from '../http/body.ts';
import { ApiError } from '../http/errors.ts';
import { jsonBody, namedInPath, needsCredential, refusals, throttledCredential } from '../http/refusals.ts';
import { json, noContent } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { csrfHeaderName, csrfTokenOf, isCrossSite, isSecureRequest, sessionCookie } from '../ui/session.ts';
import { Email, Password, UserName } from './accounts.ts';
import { mountInvitations } from './invitation-routes.ts';
import { mountSingleSignOn } from './oidc-routes.ts';
import { mountPasswordLinks } from './password-link-routes.ts';
import type { Mailer } from '../mail/mailer.ts';
import { describeMe, listMySessions, revokeMySession, updateMe } from './me.ts';
import { AddMemberBody, addMember, listMembers, removeMember, UpdateMemberBody, updateMember } from './members.ts';
import { deleteUserSession } from './queries/user-session-rows.ts';
import { confirmTotp, disableTotp, startTotp } from './second-factor.ts';
import { signIn } from './sign-in.ts';
import { qrSvgOf } from './totp-qr.ts';
import { type NewUserSession, sessionOfCookie, signedInUserOf, type SignedInUser } from './user-sessions.ts';
import { pathParam } from '../http/path-params.ts';

const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const RoleAnswer = v.picklist(['owner', 'admin', 'analyst', 'viewer']);
const UserAnswer = v.strictObject({
  id: v.string(),
  email: v.string(),
  name: v.string(),
  created_at: IsoTime,
  last_login_at: v.nullable(IsoTime),
  totp_enabled: v.boolean(),
  sso: v.boolean(),
  disabled_at: v.nullable(IsoTime),
  operator: v.boolean(),
});
const MeAnswer = v.strictObject({
  user: UserAnswer,
  workspaces: v.array(v.strictObject({ id: v.string(), slug: v.string(), name: v.string(), role: RoleAnswer })),
  /** A workspace of theirs requires a second factor they have not set up: only /v1/me and /v1/auth answer until then. */
  totp_setup_required: v.boolean(),
  /** Sent back in X-Sightline-CSRF on every mutating request of the session. */
  csrf: v.string(),
  session_id: v.string(),
  expires_at: IsoTime,
});
const SessionAnswer = v.strictObject({ id: v.string(), user_agent: v.string(), created_at: IsoTime, last_used_at: IsoTime, expires_at: IsoTime, current: v.boolean() });
const MemberAnswer = v.strictObject({
  workspace: v.string(),
  user_id: v.string(),
  email: v.string(),
  name: v.string(),
  role: RoleAnswer,
  created_at: IsoTime,
  disabled_at: v.nullable(IsoTime),
});

const LoginBody = v.strictObject({
  email: v.pipe(v.string('must be a string'), v.maxLength(254, 'must be at most 254 characters')),
  // Not the creation rule: any password up to the maximum is checked (and answers invalid_credentials when wrong).
  password: v.pipe(v.string('must be a string'), v.maxLength(256 * 4, 'is too long')),
  totp: v.optional(v.pipe(v.string('must be a string'), v.maxLength(64, 'must be at most 64 characters'))),
});
const UpdateMeBody = v.strictObject({ name: v.optional(UserName), password: v.optional(Password), current_password: v.pipe(v.string('must be a string'), v.maxLength(1024, 'is too long')) });
const CodeBody = v.strictObject({ code: v.pipe(v.string('must be a string'), v.maxLength(64, 'must be at most 64 characters')) });

const noStore = { 'cache-control': 'no-store' };
const signedInOnly = { 401: ['unauthorized'] };
const badCode = { 400: ['invalid_code'] };

/**
 * The answer of a privilege change: the cookie of the session that replaced the request's, and its CSRF token in
 * X-Sightline-CSRF (also what GET /v1/me answers next).
 */
function withNewSession(event: H3Event, context: AppContext, response: Response, session: NewUserSession): Response {
  response.headers.append('set-cookie', sessionCookie(session.token, isSecureRequest(event, context)));
  response.headers.set(csrfHeaderName, session.csrf);
  return response;
}

/** The signed-in user of the request, or 401 unauthorized (the admin token and API keys have no account). */
function requireUser(event: H3Event, context: AppContext): SignedInUser {
  const signedIn = signedInUserOf(event, context);
  if (!signedIn) throw ApiError.unauthorized();
  return signedIn;
}

/** `mailer`, when given, also mails each invitation's link (SMTP_URL set). */
export function mountUsers(app: H3, context: AppContext, mailer?: Pick<Mailer, 'configured' | 'sendDirect'>): void {
  addRoute(app, {
    method: 'POST',
    path: '/auth/login',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals({ 401: ['unauthorized', 'invalid_credentials', 'totp_required'] }, throttledCredential, jsonBody),
    summary: 'Sign in with e-mail, password and, when the account has a second factor, a code: sets the session cookie (a new session)',
    body: LoginBody,
    answer: MeAnswer,
    handler: async (event) => {
      // As the UI's token sign-in: a page of another site cannot sign anyone in (login CSRF).
      if (isCrossSite(event, context)) throw ApiError.unauthorized();
      const input = parseBody(LoginBody, await readJsonBody(event, { limitBytes: 8192, accept: ['application/json'] }));
      const { user, session } = await signIn(event, context, input);
      const response = json(describeMe(context, user, { id: session.id, expires_at: session.expiresAt }, session.csrf));
      response.headers.append('set-cookie', sessionCookie(session.token, isSecureRequest(event, context)));
      return response;
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/auth/logout',
    versionedOnly: true,
    headers: noStore,
    refusals: {},
    summary: 'Sign out: ends the session of the cookie (same-site requests only) and clears the cookie; 204 even without one',
    status: 204,
    handler: (event) => {
      const session = isCrossSite(event, context) ? undefined : sessionOfCookie(event, context);
      if (session) deleteUserSession(context.db, session.user_id, session.id);
      const response = noContent();
      response.headers.append('set-cookie', sessionCookie(undefined, isSecureRequest(event, context)));
      return response;
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/me',
    versionedOnly: true,
    headers: noStore,
    refusals: signedInOnly,
    summary: 'The signed-in user, their workspaces and roles, and the session\'s CSRF token',
    answer: MeAnswer,
    handler: (event) => {
      const signedIn = requireUser(event, context);
      return describeMe(context, signedIn.user, signedIn.session, csrfTokenOf(signedIn.token));
    },
  });
  addRoute(app, {
    method: 'PATCH',
    path: '/me',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals({ 401: ['unauthorized', 'invalid_credentials'] }, throttledCredential, jsonBody),
    summary: 'Change one\'s name or password (current_password required); a new password ends one\'s other sessions and replaces this one (a new cookie, its CSRF token in X-Sightline-CSRF)',
    body: UpdateMeBody,
    answer: UserAnswer,
    handler: async (event) => {
      const signedIn = requireUser(event, context);
      const input = parseBody(UpdateMeBody, await readJsonBody(event));
      const { user, newSession } = await updateMe(event, context, signedIn, input);
      return newSession ? withNewSession(event, context, json(user), newSession) : user;
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/me/sessions',
    versionedOnly: true,
    headers: noStore,
    refusals: signedInOnly,
    summary: 'One\'s live sessions, newest first (current: the one asking)',
    answer: v.strictObject({ sessions: v.array(SessionAnswer) }),
    handler: (event) => ({ sessions: listMySessions(context, requireUser(event, context)) }),
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/me/sessions/:id',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(signedInOnly, namedInPath),
    summary: 'Revoke one of one\'s sessions (it stops working at once)',
    status: 204,
    handler: (event) => {
      revokeMySession(context, requireUser(event, context), pathParam(event, 'id'));
      return noContent();
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/me/totp',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(signedInOnly, { 409: ['totp_enabled'] }),
    summary: 'Start setting up a second factor: a new TOTP secret, its otpauth URI and that URI\'s QR code as SVG (not required until confirmed)',
    status: 201,
    answer: v.strictObject({
      secret: v.string(),
      otpauth_uri: v.string(),
      qr_svg: v.pipe(v.string(), v.description('The otpauth URI as a QR code: an SVG document (the admin UI shows it as an image)')),
    }),
    handler: async (event) => {
      const started = startTotp(context, requireUser(event, context).user.id);
      return json({ ...started, qr_svg: await qrSvgOf(started.otpauth_uri) }, 201);
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/me/totp/confirm',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(signedInOnly, jsonBody, badCode, { 409: ['totp_enabled', 'totp_not_started'] }),
    summary: 'Turn the second factor on with a current code: answers ten one-time recovery codes, shown once, and replaces the session (a new cookie, its CSRF token in X-Sightline-CSRF)',
    body: CodeBody,
    answer: v.strictObject({ recovery_codes: v.array(v.string()) }),
    handler: async (event) => {
      const signedIn = requireUser(event, context);
      const { code } = parseBody(CodeBody, await readJsonBody(event));
      const { recovery_codes, newSession } = confirmTotp(context, signedIn, code);
      return withNewSession(event, context, json({ recovery_codes }), newSession);
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/me/totp',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(signedInOnly, jsonBody, badCode, { 409: ['totp_not_enabled'] }),
    summary: 'Turn the second factor off with a current code or a recovery code',
    body: CodeBody,
    status: 204,
    handler: async (event) => {
      const signedIn = requireUser(event, context);
      const { code } = parseBody(CodeBody, await readJsonBody(event));
      disableTotp(context, signedIn.user.id, code);
      return noContent();
    },
  });
  mountMembers(app, context);
  mountInvitations(app, context, mailer);
  mountSingleSignOn(app, context);
  mountPasswordLinks(app, context);
}


function mountMembers(app: H3, context: AppContext): void {
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug/members',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'The workspace\'s members and their roles (admin scope)',
    answer: v.strictObject({ members: v.array(MemberAnswer) }),
    handler: (event) => ({ members: listMembers(context, resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' }).workspace) }),
  });
  addRoute(app, {
    method: 'POST',
    path: '/workspaces/:slug/members',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody, { 409: ['already_member'] }),
    summary: 'Add an existing user (user_id or email) with a role (owners, operators and the admin token)',
    body: AddMemberBody,
    status: 201,
    answer: MemberAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { role: 'owner' });
      const input = parseBody(AddMemberBody, await readJsonBody(event));
      return json(addMember(context, actorOf(caller), workspace, input), 201);
    },
  });
  addRoute(app, {
    method: 'PATCH',
    path: '/workspaces/:slug/members/:userId',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody, { 409: ['last_owner'] }),
    summary: 'Change a member\'s role (the last owner cannot be demoted: 409 last_owner)',
    body: UpdateMemberBody,
    answer: MemberAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { role: 'owner' });
      const input = parseBody(UpdateMemberBody, await readJsonBody(event));
      return updateMember(context, actorOf(caller), workspace, pathParam(event, 'userId'), input.role);
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/workspaces/:slug/members/:userId',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, { 409: ['last_owner'] }),
    summary: 'Remove a member (the last owner cannot be removed: 409 last_owner)',
    status: 204,
    handler: (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { role: 'owner' });
      removeMember(context, actorOf(caller), workspace, pathParam(event, 'userId'));
      return noContent();
    },
  });
}
