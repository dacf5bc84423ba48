// The population's sites: the query's site_id, which must belong to the path's workspace (a missing or foreign site
// is the same 404, like a missing workspace), or with scope "all-sites" every site of the workspace.
import { listSiteIds } from '../tenants/queries/list-sites.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import type { ReportMeta } from '../reading/meta-answer.ts';
import type { FunnelQuery } from './funnel-query.ts';

export interface AnalysisScope {
  workspaceId: string;
  siteIds: string[];
  meta: ReportMeta['scope'];
}

/** @example resolveAnalysisScope(context, workspace, query) // { siteIds: ['blog'], meta: { site_id: 'blog' }, … } */
export function resolveAnalysisScope(context: Pick<AppContext, 'db'>, workspace: WorkspaceRow, query: FunnelQuery): AnalysisScope {
  if (query.siteId === null) {
    return { workspaceId: workspace.id, siteIds: listSiteIds(context.db, workspace.id), meta: { workspace: workspace.slug, all_sites: true } };
  }
  const site = findSite(context.db, query.siteId);
  if (!site || site.workspace_id !== workspace.id) throw ApiError.notFound();
  return { workspaceId: workspace.id, siteIds: [site.id], meta: { site_id: site.id } };
}
