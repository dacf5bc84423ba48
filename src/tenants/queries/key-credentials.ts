// The lookups on the authentication path: an API key by the SHA-256 of its plaintext (a bearer) or by its id (the key
// a UI session stands for), and the write of its last use.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface KeyCredentialRow {
  id: string;
  workspace_id: string;
  scopes: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

const statements = preparedOnce((db) => ({
  byHash: db.prepare<[Buffer], KeyCredentialRow>(
    'SELECT id, workspace_id, scopes, revoked_at, last_used_at FROM api_keys WHERE key_hash = ?',
  ),
  byId: db.prepare<[string], KeyCredentialRow>('SELECT id, workspace_id, scopes, revoked_at, last_used_at FROM api_keys WHERE id = ?'),
  touch: db.prepare<{ id: string; now: string }>('UPDATE api_keys SET last_used_at = :now WHERE id = :id'),
}));

export function findKeyByHash(db: Db, keyHash: Buffer): KeyCredentialRow | undefined {
  return statements(db).byHash.get(keyHash);
}

export function findKeyById(db: Db, keyId: string): KeyCredentialRow | undefined {
  return statements(db).byId.get(keyId);
}

export function touchKeyLastUsed(db: Db, keyId: string, now: string): void {
  statements(db).touch.run({ id: keyId, now });
}
