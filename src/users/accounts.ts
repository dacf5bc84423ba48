// Account actions shared by the HTTP routes and the CLI: create, list, read, update (name, password), disable.
import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { type AccountActor, recordAccountAudit } from './account-audit.ts';
import { hashPassword, maxPasswordLength, minPasswordLength } from './password.ts';
import { deleteAllUserSessions } from './queries/user-session-rows.ts';
import { findUserByEmail, findUserById, insertUser, listUsers, setUserDisabled, type UserRow } from './queries/user-rows.ts';

/** CONTRACT 9: at least 12 characters, at most 256 (counted as code points, so an emoji is one). */
export const Password = v.pipe(
  v.string('must be a string'),
  v.check((value) => [...value].length >= minPasswordLength, `must be at least ${minPasswordLength} characters`),
  v.check((value) => [...value].length <= maxPasswordLength, `must be at most ${maxPasswordLength} characters`),
);
export const Email = v.pipe(v.string('must be a string'), v.trim(), v.maxLength(254, 'must be at most 254 characters'), v.email('must be an e-mail address'));
export const UserName = v.pipe(v.string('must be a string'), v.trim(), v.maxLength(200, 'must be at most 200 characters'));

/** E-mails are compared lower-cased (CONTRACT 9). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A user as the API shows it (CONTRACT 9), never its secrets. */
export interface User {
  id: string;
  email: string;
  name: string;
  created_at: string;
  last_login_at: string | null;
  totp_enabled: boolean;
  sso: boolean;
  disabled_at: string | null;
  operator: boolean;
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    created_at: row.created_at,
    last_login_at: row.last_login_at,
    totp_enabled: row.totp_enabled === 1,
    sso: row.sso_subject !== null,
    disabled_at: row.disabled_at,
    operator: row.operator === 1,
  };
}

export interface CreatedUser {
  user: User;
  /** Generated when none was given: shown once (the CLI prints it), stored only as its hash. */
  initialPassword: string | undefined;
}

/**
 * Creates an account; 409 email_taken when the (lower-cased) e-mail is someone's. Without a password, one of 24
 * random base64url characters (144 bits) is generated and returned once.
 */
export async function createUser(
  context: AppContext,
  actor: AccountActor,
  input: { email: string; name?: string; password?: string; operator?: boolean },
): Promise<CreatedUser> {
  const email = normaliseEmail(input.email);
  const initialPassword = input.password === undefined ? randomBytes(18).toString('base64url') : undefined;
  const passwordHash = await hashPassword(input.password ?? initialPassword!);
  const row = inWriteTransaction(context.db, () => {
    if (findUserByEmail(context.db, email)) throw ApiError.conflict('email_taken', 'A user with this e-mail exists');
    const id = context.random.uuid();
    insertUser(context.db, { id, email, name: input.name ?? '', password_hash: passwordHash, operator: input.operator ? 1 : 0, created_at: toIso(context.clock.now()) });
    recordAccountAudit(context, { actor, action: 'user.create', userId: id, metadata: { operator: input.operator === true } });
    return findUserById(context.db, id)!;
  });
  return { user: toUser(row), initialPassword };
}

export function listAllUsers(context: AppContext): User[] {
  return listUsers(context.db).map(toUser);
}

/** A user by id or by e-mail (the CLI takes either); 404 when there is none. */
export function findUserByIdOrEmail(context: AppContext, idOrEmail: string): UserRow {
  const row = idOrEmail.includes('@') ? findUserByEmail(context.db, normaliseEmail(idOrEmail)) : findUserById(context.db, idOrEmail);
  if (!row) throw ApiError.notFound('No such user');
  return row;
}

/** Disables an account: it can no longer sign in, and every session of it ends at once. Disabling twice is a no-op. */
export function disableUser(context: AppContext, actor: AccountActor, userId: string): User {
  return inWriteTransaction(context.db, () => {
    const row = findUserById(context.db, userId);
    if (!row) throw ApiError.notFound('No such user');
    if (row.disabled_at !== null) return toUser(row);
    setUserDisabled(context.db, userId, toIso(context.clock.now()));
    const ended = deleteAllUserSessions(context.db, userId);
    recordAccountAudit(context, { actor, action: 'user.disable', userId, metadata: { sessions_ended: ended } });
    return toUser(findUserById(context.db, userId)!);
  });
}
