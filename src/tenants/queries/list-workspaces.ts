// One page of workspaces in creation order.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { WorkspaceRow } from './find-workspace.ts';

export interface ListWorkspacesParams {
  afterCreatedAt: string;
  afterId: string;
  limit: number;
}

const statements = preparedOnce((db) => ({
  page: db.prepare<ListWorkspacesParams, WorkspaceRow>(
    `SELECT id, slug, name, created_at, updated_at FROM workspaces
      WHERE (created_at, id) > (:afterCreatedAt, :afterId)
      ORDER BY created_at, id LIMIT :limit`,
  ),
}));

export function listWorkspaceRows(db: Db, params: ListWorkspacesParams): WorkspaceRow[] {
  return statements(db).page.all(params);
}
