// Who may read what: a site endpoint's population is its site, or with scope=all-sites every site of the site's
// workspace (an API key sees only its own workspace; the admin token the site's). Missing and foreign are one 404.
import { type H3Event } from 'h3';
import { listSiteIds } from '../tenants/queries/list-sites.ts';
import { findWorkspaceById } from '../tenants/queries/find-workspace.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { AppContext } from '../context.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { pathParam } from '../http/path-params.ts';

export interface ReportScope {
  site: SiteRow;
  siteIds: string[];
  workspaceId: string;
  /** How meta.scope shows it. */
  meta: { site_id: string } | { workspace: string; all_sites: true };
}


export function siteIdOf(event: H3Event): string {
  return pathParam(event, 'siteId');
}

/**
 * Authenticates (query:read) and resolves the population; call before parsing anything else. `dashboard`: the read
 * is one of the dashboards' (a site's reports), which a viewer may read too (docs/people.md).
 */
export function resolveReportSite(event: H3Event, context: AppContext, options: { dashboard?: boolean } = {}): SiteRow {
  return resolveSite(event, context, siteIdOf(event), options.dashboard ? { scope: 'query:read', dashboard: true } : { scope: 'query:read' }).site;
}

export function toReportScope(context: AppContext, site: SiteRow, allSites: boolean): ReportScope {
  if (!allSites) return { site, siteIds: [site.id], workspaceId: site.workspace_id, meta: { site_id: site.id } };
  const workspace = findWorkspaceById(context.db, site.workspace_id)!;
  const siteIds = listSiteIds(context.db, site.workspace_id);
  return { site, siteIds, workspaceId: site.workspace_id, meta: { workspace: workspace.slug, all_sites: true } };
}
