// One page of a workspace's sites in creation order.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { SiteRow } from './find-site.ts';

export interface ListSitesParams {
  workspaceId: string;
  afterCreatedAt: string;
  afterId: string;
  limit: number;
}

const statements = preparedOnce((db) => ({
  page: db.prepare<ListSitesParams, SiteRow>(
    `SELECT id, workspace_id, name, created_at, cookieless, retention_days FROM sites
      WHERE workspace_id = :workspaceId AND (created_at, id) > (:afterCreatedAt, :afterId)
      ORDER BY created_at, id LIMIT :limit`,
  ),
  allIds: db.prepare<[string], { id: string }>('SELECT id FROM sites WHERE workspace_id = ? ORDER BY id'),
}));

export function listSiteRows(db: Db, params: ListSitesParams): SiteRow[] {
  return statements(db).page.all(params);
}

/** Every site id of a workspace (for workspace-wide reports). */
export function listSiteIds(db: Db, workspaceId: string): string[] {
  return statements(db).allIds.all(workspaceId).map((row) => row.id);
}
