// API key rows: insert, page through a workspace's keys, find one, revoke one.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface KeyRow {
  id: string;
  workspace_id: string;
  label: string;
  scopes: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ListKeysParams {
  workspaceId: string;
  afterCreatedAt: string;
  afterId: string;
  limit: number;
}

const columns = 'id, workspace_id, label, scopes, created_at, last_used_at, revoked_at';

const statements = preparedOnce((db) => ({
  insert: db.prepare<KeyRow & { key_hash: Buffer }>(
    `INSERT INTO api_keys (id, workspace_id, label, scopes, key_hash, created_at, last_used_at, revoked_at)
     VALUES (:id, :workspace_id, :label, :scopes, :key_hash, :created_at, :last_used_at, :revoked_at)`,
  ),
  page: db.prepare<ListKeysParams, KeyRow>(
    `SELECT ${columns} FROM api_keys
      WHERE workspace_id = :workspaceId AND (created_at, id) > (:afterCreatedAt, :afterId)
      ORDER BY created_at, id LIMIT :limit`,
  ),
  find: db.prepare<{ id: string; workspaceId: string }, KeyRow>(
    `SELECT ${columns} FROM api_keys WHERE id = :id AND workspace_id = :workspaceId`,
  ),
  revoke: db.prepare<{ id: string; now: string }>('UPDATE api_keys SET revoked_at = :now WHERE id = :id AND revoked_at IS NULL'),
}));

export function insertKey(db: Db, row: KeyRow & { key_hash: Buffer }): void {
  statements(db).insert.run(row);
}

export function listKeyRows(db: Db, params: ListKeysParams): KeyRow[] {
  return statements(db).page.all(params);
}

export function findKeyInWorkspace(db: Db, workspaceId: string, id: string): KeyRow | undefined {
  return statements(db).find.get({ id, workspaceId });
}

/** True when this call revoked the key (false when it was already revoked). */
export function revokeKeyRow(db: Db, id: string, now: string): boolean {
  return statements(db).revoke.run({ id, now }).changes === 1;
}
