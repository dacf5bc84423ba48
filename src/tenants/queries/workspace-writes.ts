// Inserts and renames workspaces.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { WorkspaceRow } from './find-workspace.ts';

const statements = preparedOnce((db) => ({
  insert: db.prepare<WorkspaceRow>(
    'INSERT INTO workspaces (id, slug, name, created_at, updated_at) VALUES (:id, :slug, :name, :created_at, :updated_at)',
  ),
  rename: db.prepare<{ id: string; name: string; updated_at: string }>(
    'UPDATE workspaces SET name = :name, updated_at = :updated_at WHERE id = :id',
  ),
}));

export function insertWorkspace(db: Db, row: WorkspaceRow): void {
  statements(db).insert.run(row);
}

export function renameWorkspace(db: Db, id: string, name: string, updatedAt: string): void {
  statements(db).rename.run({ id, name, updated_at: updatedAt });
}
