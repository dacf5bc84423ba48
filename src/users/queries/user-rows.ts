// The users table (schema version 20): found by id or by lower-cased e-mail; written by the account actions.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface UserRow {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  operator: 0 | 1;
  totp_secret: Buffer | null;
  totp_enabled: 0 | 1;
  totp_last_step: number | null;
  created_at: string;
  last_login_at: string | null;
  disabled_at: string | null;
  /** "<issuer> <sub>" of the linked OpenID account (schema version 22), or null: never signed in with SSO. */
  sso_subject: string | null;
}

const columns = 'id, email, name, password_hash, operator, totp_secret, totp_enabled, totp_last_step, created_at, last_login_at, disabled_at, sso_subject';

const statements = preparedOnce((db) => ({
  insert: db.prepare<Pick<UserRow, 'id' | 'email' | 'name' | 'password_hash' | 'operator' | 'created_at'>>(
    `INSERT INTO users (id, email, name, password_hash, operator, created_at) VALUES (:id, :email, :name, :password_hash, :operator, :created_at)`,
  ),
  byId: db.prepare<[string], UserRow>(`SELECT ${columns} FROM users WHERE id = ?`),
  byEmail: db.prepare<[string], UserRow>(`SELECT ${columns} FROM users WHERE email = ?`),
  list: db.prepare<[], UserRow>(`SELECT ${columns} FROM users ORDER BY created_at, id`),
  setName: db.prepare<{ id: string; name: string }>('UPDATE users SET name = :name WHERE id = :id'),
  setPassword: db.prepare<{ id: string; password_hash: string }>('UPDATE users SET password_hash = :password_hash WHERE id = :id'),
  setLogin: db.prepare<{ id: string; now: string }>('UPDATE users SET last_login_at = :now WHERE id = :id'),
  setDisabled: db.prepare<{ id: string; disabled_at: string | null }>('UPDATE users SET disabled_at = :disabled_at WHERE id = :id'),
  setTotp: db.prepare<{ id: string; totp_secret: Buffer | null; totp_enabled: 0 | 1 }>(
    'UPDATE users SET totp_secret = :totp_secret, totp_enabled = :totp_enabled, totp_last_step = NULL WHERE id = :id',
  ),
  bySsoSubject: db.prepare<[string], UserRow>(`SELECT ${columns} FROM users WHERE sso_subject = ?`),
  setSsoSubject: db.prepare<{ id: string; sso_subject: string }>('UPDATE users SET sso_subject = :sso_subject WHERE id = :id'),
  setTotpStep: db.prepare<{ id: string; step: number }>('UPDATE users SET totp_last_step = :step WHERE id = :id'),
}));

export const insertUser = (db: Db, row: Pick<UserRow, 'id' | 'email' | 'name' | 'password_hash' | 'operator' | 'created_at'>): void => void statements(db).insert.run(row);
export const findUserById = (db: Db, id: string): UserRow | undefined => statements(db).byId.get(id);
/** `email` must already be lower-cased (normaliseEmail). */
export const findUserByEmail = (db: Db, email: string): UserRow | undefined => statements(db).byEmail.get(email);
export const listUsers = (db: Db): UserRow[] => statements(db).list.all();
export const setUserName = (db: Db, id: string, name: string): void => void statements(db).setName.run({ id, name });
export const setUserPassword = (db: Db, id: string, passwordHash: string): void => void statements(db).setPassword.run({ id, password_hash: passwordHash });
export const setUserLogin = (db: Db, id: string, now: string): void => void statements(db).setLogin.run({ id, now });
export const setUserDisabled = (db: Db, id: string, disabledAt: string | null): void => void statements(db).setDisabled.run({ id, disabled_at: disabledAt });
export const setUserTotp = (db: Db, id: string, sealed: Buffer | null, enabled: boolean): void =>
  void statements(db).setTotp.run({ id, totp_secret: sealed, totp_enabled: enabled ? 1 : 0 });
export const setUserTotpStep = (db: Db, id: string, step: number): void => void statements(db).setTotpStep.run({ id, step });
export const findUserBySsoSubject = (db: Db, subject: string): UserRow | undefined => statements(db).bySsoSubject.get(subject);
export const setUserSsoSubject = (db: Db, id: string, subject: string): void => void statements(db).setSsoSubject.run({ id, sso_subject: subject });
