// A signed-in user's sessions: the UI's session cookie (same name, same CSRF and same-site rules: src/ui/session.ts),
// stored in user_sessions with an id of its own so the user can list and revoke each one. Idle for at most 12 hours,
// alive for at most 7 days, as the UI's other sessions. A new id and cookie at every sign-in (no fixation).
import type { H3Event } from 'h3';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { Caller, Role } from '../access/caller.ts';
import { hashSecret } from '../tenants/api-key-token.ts';
import { acceptedSessionToken, csrfTokenOf, readSessionCookie, sessionIdleMs, sessionLifetimeMs } from '../ui/session.ts';
import { ApiError } from '../http/errors.ts';
import { membershipsOfUser } from './queries/membership-rows.ts';
import { anyWorkspaceOfUserRequires2fa } from './queries/two-factor-rule-rows.ts';
import {
  deleteExpiredUserSessions,
  deleteUserSession,
  findUserSessionByHash,
  insertUserSession,
  liveSessionsOfUser,
  touchUserSession,
  type UserSessionRow,
} from './queries/user-session-rows.ts';
import { findUserById, type UserRow } from './queries/user-rows.ts';

const touchIntervalMs = 60_000;

export interface NewUserSession {
  id: string;
  token: string;
  csrf: string;
  expiresAt: string;
}

/** Stores a new session of the user (expired ones are swept at the same time). Call inside the sign-in's transaction. */
export function createUserSession(context: AppContext, userId: string, userAgent: string): NewUserSession {
  const now = context.clock.now();
  const token = context.random.bytes(32).toString('base64url');
  const id = context.random.uuid();
  const expiresAt = toIso(now + sessionLifetimeMs);
  deleteExpiredUserSessions(context.db, toIso(now), toIso(now - sessionIdleMs));
  insertUserSession(context.db, {
    id,
    token_hash: hashSecret(token),
    user_id: userId,
    user_agent: userAgent.slice(0, 200),
    created_at: toIso(now),
    last_used_at: toIso(now),
    expires_at: expiresAt,
  });
  return { id, token, csrf: csrfTokenOf(token), expiresAt };
}

/**
 * A privilege change (a new password, a second factor turned on) ends the session it was made in and opens a new one
 * with a new id and cookie, so a cookie planted or seen before the change is worth nothing after it. Call inside the
 * change's transaction; the route sets the new cookie.
 */
export function replaceUserSession(context: AppContext, signedIn: SignedInUser): NewUserSession {
  deleteUserSession(context.db, signedIn.user.id, signedIn.session.id);
  return createUserSession(context, signedIn.user.id, signedIn.session.user_agent);
}

/** The live session of a cookie value (not past its end, not idle too long), or undefined. */
function liveSessionOf(context: AppContext, token: string): UserSessionRow | undefined {
  const row = findUserSessionByHash(context.db, hashSecret(token));
  if (!row) return undefined;
  const now = context.clock.now();
  if (Date.parse(row.expires_at) <= now || Date.parse(row.last_used_at) + sessionIdleMs <= now) return undefined;
  return row;
}

export interface SignedInUser {
  user: UserRow;
  session: UserSessionRow;
  /** The cookie's value (for the CSRF token of the answer). */
  token: string;
}

/**
 * The signed-in user of the request: a live session of a user who is not disabled, under the cookie's conditions
 * (same-site; CSRF header on a mutating request).
 */
export function signedInUserOf(event: H3Event, context: AppContext): SignedInUser | undefined {
  const token = acceptedSessionToken(event, context);
  if (!token) return undefined;
  const session = liveSessionOf(context, token);
  if (!session) return undefined;
  const user = findUserById(context.db, session.user_id);
  if (!user || user.disabled_at !== null) return undefined;
  touch(context, session);
  return { user, session, token };
}

/**
 * The caller a user's session stands for: the user with their role in each workspace (the access lookup). A user
 * without a second factor who belongs to a workspace that requires one reaches nothing through the resolver (403
 * totp_setup_required) until they set it up: /v1/me and /v1/auth do not go through it (docs/people.md).
 */
export function userSessionCallerOf(event: H3Event, context: AppContext): Caller | undefined {
  const signedIn = signedInUserOf(event, context);
  if (!signedIn) return undefined;
  if (mustSetUpSecondFactor(context, signedIn.user)) throw totpSetupRequired();
  return callerOfUser(context, signedIn.user);
}

/** Whether the user lacks the second factor that one of their workspaces requires. */
export function mustSetUpSecondFactor(context: AppContext, user: UserRow): boolean {
  return user.totp_enabled !== 1 && anyWorkspaceOfUserRequires2fa(context.db, user.id);
}

export function totpSetupRequired(): ApiError {
  return new ApiError(403, 'totp_setup_required', 'A workspace of yours requires a second factor: set it up (POST /v1/me/totp, then /v1/me/totp/confirm) first');
}

export function callerOfUser(context: AppContext, user: UserRow): Caller {
  const roles: Record<string, Role> = {};
  for (const membership of membershipsOfUser(context.db, user.id)) roles[membership.workspace_id] = membership.role;
  return { kind: 'user', userId: user.id, operator: user.operator === 1, roles };
}

/** The session a cookie names, whoever sent it (sign-out), or undefined. */
export function sessionOfCookie(event: H3Event, context: AppContext): UserSessionRow | undefined {
  const token = readSessionCookie(event);
  return token ? findUserSessionByHash(context.db, hashSecret(token)) : undefined;
}

export function liveSessionsOf(context: AppContext, userId: string): UserSessionRow[] {
  const now = context.clock.now();
  return liveSessionsOfUser(context.db, userId, toIso(now), toIso(now - sessionIdleMs));
}

function touch(context: AppContext, session: UserSessionRow): void {
  const now = context.clock.now();
  if (now - Date.parse(session.last_used_at) < touchIntervalMs) return;
  try {
    touchUserSession(context.db, session.id, toIso(now));
  } catch {
    // Busy past the timeout: answered all the same; a later request writes it.
  }
}
