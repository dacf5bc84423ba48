// The user_sessions table (schema version 20): a signed-in user's sessions, found by the digest of the cookie.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface UserSessionRow {
  id: string;
  token_hash: Buffer;
  user_id: string;
  user_agent: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
}

const columns = 'id, token_hash, user_id, user_agent, created_at, last_used_at, expires_at';

const statements = preparedOnce((db) => ({
  insert: db.prepare<UserSessionRow>(
    `INSERT INTO user_sessions (${columns}) VALUES (:id, :token_hash, :user_id, :user_agent, :created_at, :last_used_at, :expires_at)`,
  ),
  byHash: db.prepare<[Buffer], UserSessionRow>(`SELECT ${columns} FROM user_sessions WHERE token_hash = ?`),
  ofUser: db.prepare<{ user_id: string; now: string; idle_before: string }, UserSessionRow>(
    `SELECT ${columns} FROM user_sessions WHERE user_id = :user_id AND expires_at > :now AND last_used_at > :idle_before ORDER BY created_at DESC, id`,
  ),
  touch: db.prepare<{ id: string; now: string }>('UPDATE user_sessions SET last_used_at = :now WHERE id = :id'),
  remove: db.prepare<{ id: string; user_id: string }>('DELETE FROM user_sessions WHERE id = :id AND user_id = :user_id'),
  removeOthers: db.prepare<{ user_id: string; keep: string }>('DELETE FROM user_sessions WHERE user_id = :user_id AND id <> :keep'),
  removeAll: db.prepare<[string]>('DELETE FROM user_sessions WHERE user_id = ?'),
  removeExpired: db.prepare<{ now: string; idle_before: string }>('DELETE FROM user_sessions WHERE expires_at <= :now OR last_used_at <= :idle_before'),
}));

export const insertUserSession = (db: Db, row: UserSessionRow): void => void statements(db).insert.run(row);
export const findUserSessionByHash = (db: Db, tokenHash: Buffer): UserSessionRow | undefined => statements(db).byHash.get(tokenHash);
export const liveSessionsOfUser = (db: Db, userId: string, now: string, idleBefore: string): UserSessionRow[] =>
  statements(db).ofUser.all({ user_id: userId, now, idle_before: idleBefore });
export const touchUserSession = (db: Db, id: string, now: string): void => void statements(db).touch.run({ id, now });
/** Deletes one of the user's sessions; true when it existed. */
export const deleteUserSession = (db: Db, userId: string, id: string): boolean => statements(db).remove.run({ id, user_id: userId }).changes > 0;
export const deleteOtherUserSessions = (db: Db, userId: string, keepId: string): number => statements(db).removeOthers.run({ user_id: userId, keep: keepId }).changes;
export const deleteAllUserSessions = (db: Db, userId: string): number => statements(db).removeAll.run(userId).changes;
export const deleteExpiredUserSessions = (db: Db, now: string, idleBefore: string): void => void statements(db).removeExpired.run({ now, idle_before: idleBefore });
