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
  /** Joined from api_keys for kind apiKey (null when the key is gone). */
  key_workspace_id: string | null;
  key_scopes: string | null;
  key_revoked_at: string | null;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<Omit<SessionRow, 'key_workspace_id' | 'key_scopes' | 'key_revoked_at'>>(
    `INSERT INTO ui_sessions (token_hash, kind, admin_hash, key_id, created_at, last_used_at, expires_at)
     VALUES (:token_hash, :kind, :admin_hash, :key_id, :created_at, :last_used_at, :expires_at)`,
  ),
  byHash: db.prepare<[Buffer], SessionRow>(
    `SELECT s.token_hash, s.kind, s.admin_hash, s.key_id, s.created_at, s.last_used_at, s.expires_at,
            k.workspace_id AS key_workspace_id, k.scopes AS key_scopes, k.revoked_at AS key_revoked_at
     FROM ui_sessions AS s LEFT JOIN api_keys AS k ON k.id = s.key_id WHERE s.token_hash = ?`,
  ),
  touch: db.prepare<{ token_hash: Buffer; now: string }>('UPDATE ui_sessions SET last_used_at = :now WHERE token_hash = :token_hash'),
  remove: db.prepare<[Buffer]>('DELETE FROM ui_sessions WHERE token_hash = ?'),
  removeExpired: db.prepare<{ now: string; idle_before: string }>('DELETE FROM ui_sessions WHERE expires_at <= :now OR last_used_at <= :idle_before'),
}));

export function insertSession(db: Db, row: Omit<SessionRow, 'key_workspace_id' | 'key_scopes' | 'key_revoked_at'>): void {
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
