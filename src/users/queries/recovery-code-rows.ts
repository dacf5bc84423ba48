// The user_recovery_codes table (schema version 20): SHA-256 digests of a user's ten one-time codes.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  insert: db.prepare<[string, Buffer]>('INSERT INTO user_recovery_codes (user_id, code_hash) VALUES (?, ?)'),
  use: db.prepare<{ user_id: string; code_hash: Buffer; now: string }>(
    'UPDATE user_recovery_codes SET used_at = :now WHERE user_id = :user_id AND code_hash = :code_hash AND used_at IS NULL',
  ),
  removeAll: db.prepare<[string]>('DELETE FROM user_recovery_codes WHERE user_id = ?'),
}));

export const insertRecoveryCode = (db: Db, userId: string, codeHash: Buffer): void => void statements(db).insert.run(userId, codeHash);
/** Marks an unused code used; true when there was one (a code works once). */
export const useRecoveryCode = (db: Db, userId: string, codeHash: Buffer, now: string): boolean => statements(db).use.run({ user_id: userId, code_hash: codeHash, now }).changes > 0;
export const deleteRecoveryCodes = (db: Db, userId: string): void => void statements(db).removeAll.run(userId);
