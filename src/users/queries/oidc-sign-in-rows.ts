// The oidc_sign_ins table (schema version 22): single sign-ons under way, found by the digest of the cookie's id and
// taken (deleted) at the callback, so each one is used once.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface OidcSignInRow {
  id_hash: Buffer;
  state: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  client_key: string;
  created_at: string;
  expires_at: string;
}

const columns = 'id_hash, state, nonce, code_verifier, redirect_uri, client_key, created_at, expires_at';

const statements = preparedOnce((db) => ({
  insert: db.prepare<OidcSignInRow>(`INSERT INTO oidc_sign_ins (${columns}) VALUES (:id_hash, :state, :nonce, :code_verifier, :redirect_uri, :client_key, :created_at, :expires_at)`),
  take: db.prepare<[Buffer], OidcSignInRow>(`DELETE FROM oidc_sign_ins WHERE id_hash = ? RETURNING ${columns}`),
  removeExpired: db.prepare<[string]>('DELETE FROM oidc_sign_ins WHERE expires_at <= ?'),
  count: db.prepare<[], { count: number }>('SELECT count(*) AS count FROM oidc_sign_ins'),
  countOfClient: db.prepare<[string], { count: number }>('SELECT count(*) AS count FROM oidc_sign_ins WHERE client_key = ?'),
}));

export const insertOidcSignIn = (db: Db, row: OidcSignInRow): void => void statements(db).insert.run(row);
/** Deletes and answers the sign-in of the digest (expired or not): a second callback with the same cookie finds none. */
export const takeOidcSignIn = (db: Db, idHash: Buffer): OidcSignInRow | undefined => statements(db).take.get(idHash);
export const deleteExpiredOidcSignIns = (db: Db, now: string): void => void statements(db).removeExpired.run(now);
/** Sign-ins under way (call after deleteExpiredOidcSignIns: expired rows count otherwise). */
export const countOidcSignIns = (db: Db): number => statements(db).count.get()!.count;
export const countOidcSignInsOfClient = (db: Db, clientKey: string): number => statements(db).countOfClient.get(clientKey)!.count;
