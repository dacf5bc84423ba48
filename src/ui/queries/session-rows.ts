// The UI sessions' rows (schema section "the admin UI's sign-in sessions"): looked up by the digest of the cookie.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface SessionRow {
  token_hash: Buffer;
  kind: 'admin' | 'apiKey';
  admin_hash: Buffer | null;
  key_id: string | null;
  created_at: string;
  last_used_at: string;
  expires_at: string;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<SessionRow>(
    `INSERT INTO ui_sessions (token_hash, kind, admin_hash, key_id, created_at, last_used_at, expires_at)
     VALUES (:token_hash, :kind, :admin_hash, :key_id, :created_at, :last_used_at, :expires_at)`,
  ),
  // The key a session stands for is tenants' to look up (src/ui/session.ts): no join on api_keys here.
  byHash: db.prepare<[Buffer], SessionRow>(
    'SELECT token_hash, kind, admin_hash, key_id, created_at, last_used_at, expires_at FROM ui_sessions WHERE token_hash = ?',
  ),
  touch: db.prepare<{ token_hash: Buffer; now: string }>('UPDATE ui_sessions SET last_used_at = :now WHERE token_hash = :token_hash'),
  remove: db.prepare<[Buffer]>('DELETE FROM ui_sessions WHERE token_hash = ?'),
  removeExpired: db.prepare<{ now: string; idle_before: string }>('DELETE FROM ui_sessions WHERE expires_at <= :now OR last_used_at <= :idle_before'),
}));

export function insertSession(db: Db, row: SessionRow): void {
  statements(db).insert.run(row);
}

export function findSessionByHash(db: Db, tokenHash: Buffer): SessionRow | undefined {
  return statements(db).byHash.get(tokenHash);
}

export function touchSession(db: Db, tokenHash: Buffer, now: string): void {
  statements(db).touch.run({ token_hash: tokenHash, now });
}

export function deleteSession(db: Db, tokenHash: Buffer): void {
  statements(db).remove.run(tokenHash);
}

/** Sessions past their absolute end or idle since `idleBefore`: removed at each sign-in, so the table stays small. */
export function deleteExpiredSessions(db: Db, now: string, idleBefore: string): void {
  statements(db).removeExpired.run({ now, idle_before: idleBefore });
}
