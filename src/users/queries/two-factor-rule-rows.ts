// The workspaces' second-factor rule (workspaces.require_2fa, schema version 21), read for a user's memberships.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  ofWorkspace: db.prepare<[string], { require_2fa: 0 | 1 }>('SELECT require_2fa FROM workspaces WHERE id = ?'),
  set: db.prepare<{ id: string; require_2fa: 0 | 1; updated_at: string }>('UPDATE workspaces SET require_2fa = :require_2fa, updated_at = :updated_at WHERE id = :id'),
  anyOfUser: db.prepare<[string], { found: 1 }>(
    'SELECT 1 AS found FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = ? AND w.require_2fa = 1 LIMIT 1',
  ),
}));

export const workspaceRequires2fa = (db: Db, workspaceId: string): boolean => statements(db).ofWorkspace.get(workspaceId)?.require_2fa === 1;
export const setWorkspaceRequires2fa = (db: Db, workspaceId: string, required: boolean, updatedAt: string): void =>
  void statements(db).set.run({ id: workspaceId, require_2fa: required ? 1 : 0, updated_at: updatedAt });
/** Whether any workspace the user belongs to requires a second factor. */
export const anyWorkspaceOfUserRequires2fa = (db: Db, userId: string): boolean => statements(db).anyOfUser.get(userId) !== undefined;
