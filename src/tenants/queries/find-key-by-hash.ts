// The one lookup on the authentication path: an API key by the SHA-256 of its plaintext.
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
  touch: db.prepare<{ id: string; now: string }>('UPDATE api_keys SET last_used_at = :now WHERE id = :id'),
}));

export function findKeyByHash(db: Db, keyHash: Buffer): KeyCredentialRow | undefined {
  return statements(db).byHash.get(keyHash);
}

export function touchKeyLastUsed(db: Db, keyId: string, now: string): void {
  statements(db).touch.run({ id: keyId, now });
}
