// The signed-in user's own account: what /v1/me shows, a change of name or password (the current password is asked
// for; a new password ends every other session of the user), the list of their sessions and revoking one.
import type { H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { clientIpOf, clientKeyOf } from '../access/auth-throttle.ts';
import { findWorkspaceById } from '../tenants/queries/find-workspace.ts';
import { recordAccountAudit } from './account-audit.ts';
import { toUser, type User } from './accounts.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { membershipsOfUser } from './queries/membership-rows.ts';
import { deleteOtherUserSessions, deleteUserSession } from './queries/user-session-rows.ts';
import { findUserById, setUserName, setUserPassword, type UserRow } from './queries/user-rows.ts';
import { chargeBeforeCheck, forgive, invalidCredentials } from './sign-in.ts';
import { liveSessionsOf, mustSetUpSecondFactor, type NewUserSession, replaceUserSession, type SignedInUser } from './user-sessions.ts';

/** What /v1/me and the sign-in answer: the user, their workspaces with roles, the session and its CSRF token. */
export function describeMe(context: AppContext, user: UserRow, session: { id: string; expires_at: string }, csrf: string) {
  const workspaces = membershipsOfUser(context.db, user.id).flatMap((membership) => {
    const workspace = findWorkspaceById(context.db, membership.workspace_id);
    return workspace ? [{ id: workspace.id, slug: workspace.slug, name: workspace.name, role: membership.role }] : [];
  });
  // True: a workspace of theirs requires a second factor and they have none; everything but /v1/me and /v1/auth
  // answers 403 totp_setup_required until they set it up.
  const totp_setup_required = mustSetUpSecondFactor(context, user);
  return { user: toUser(user), workspaces, totp_setup_required, csrf, session_id: session.id, expires_at: session.expires_at };
}

/**
 * Checks the current password (a wrong one counts against the account and the address like a failed sign-in),
 * then changes the name and/or the password. A new password ends the user's other sessions and replaces this one
 * (a new id and cookie: no fixation across a privilege change).
 */
export async function updateMe(
  event: H3Event,
  context: AppContext,
  signedIn: SignedInUser,
  input: { name?: string; password?: string; current_password: string },
): Promise<{ user: User; newSession: NewUserSession | undefined }> {
  const keys = [clientKeyOf(clientIpOf(event, context)), `account:${signedIn.user.id}`];
  chargeBeforeCheck(context, keys);
  if (!(await verifyPassword(input.current_password, signedIn.user.password_hash))) throw invalidCredentials();
  forgive(context, keys);
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password);
  return inWriteTransaction(context.db, () => {
    const userId = signedIn.user.id;
    if (input.name !== undefined) setUserName(context.db, userId, input.name);
    let sessionsEnded = 0;
    let newSession: NewUserSession | undefined;
    if (passwordHash !== undefined) {
      setUserPassword(context.db, userId, passwordHash);
      sessionsEnded = deleteOtherUserSessions(context.db, userId, signedIn.session.id);
      newSession = replaceUserSession(context, signedIn);
    }
    const fields = [...(input.name !== undefined ? ['name'] : []), ...(passwordHash !== undefined ? ['password'] : [])];
    recordAccountAudit(context, { actor: { kind: 'user', id: userId }, action: 'user.update', userId, metadata: { fields, sessions_ended: sessionsEnded, ...(newSession ? { session_id: newSession.id } : {}) } });
    return { user: toUser(findUserById(context.db, userId)!), newSession };
  });
}

export function listMySessions(context: AppContext, signedIn: SignedInUser) {
  return liveSessionsOf(context, signedIn.user.id).map((row) => ({
    id: row.id,
    user_agent: row.user_agent,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
    current: row.id === signedIn.session.id,
  }));
}

/** Revokes one of the user's own sessions (another user's id is the 404 of a missing one). */
export function revokeMySession(context: AppContext, signedIn: SignedInUser, sessionId: string): void {
  inWriteTransaction(context.db, () => {
    if (!deleteUserSession(context.db, signedIn.user.id, sessionId)) throw ApiError.notFound('No such session');
    recordAccountAudit(context, { actor: { kind: 'user', id: signedIn.user.id }, action: 'session.revoke', userId: signedIn.user.id, metadata: { session_id: sessionId } });
  });
}
