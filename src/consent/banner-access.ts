// Who may read or save a site's banner: the admin token, which must also name the site's workspace in X-Workspace-Id
// (spec, Consent banner configuration), or a key of the site's workspace with the scope. Every refusal about the
// site or the workspace is the one 404 of a missing site.
import type { H3Event } from 'h3';
import { findWorkspaceById } from '../tenants/queries/find-workspace.ts';
import { findSite, type SiteRow } from '../tenants/queries/find-site.ts';
import type { AppContext } from '../context.ts';
import { checkRequirement, type SiteAccess } from '../access/resolve-access.ts';
import { authenticate } from '../access/authenticate.ts';
import { canSeeWorkspace, type Scope } from '../access/caller.ts';
import { ApiError } from '../http/errors.ts';

/**
 * Whether an X-Workspace-Id value names the site's workspace: its id (a UUID, any case) or its slug. A workspace's
 * slug may look like a UUID, but both are compared with the site's own workspace only.
 */
function namesWorkspaceOf(context: AppContext, site: SiteRow, header: string): boolean {
  const value = header.trim();
  if (value.toLowerCase() === site.workspace_id.toLowerCase()) return true;
  return findWorkspaceById(context.db, site.workspace_id)?.slug === value;
}

/**
 * The admin token needs X-Workspace-Id; a key is bound to its workspace and needs none, but one it sends must be
 * right too. Checked after the site (404) and before the scope (403: the caller can see the site by then).
 * @example const { caller, site } = resolveBannerSite(event, context, siteId, 'admin');
 */
export function resolveBannerSite(event: H3Event, context: AppContext, siteId: string, scope: Scope): SiteAccess {
  const caller = authenticate(event, context);
  const site = findSite(context.db, siteId);
  if (!site || !canSeeWorkspace(caller, site.workspace_id)) throw ApiError.notFound();
  const header = event.req.headers.get('x-workspace-id');
  if (caller.kind === 'admin' && header === null) throw ApiError.notFound();
  if (header !== null && !namesWorkspaceOf(context, site, header)) throw ApiError.notFound();
  // The resolver's rule, so a viewer (dashboards only) does not read the banner's settings.
  checkRequirement(caller, { scope }, site.workspace_id);
  return { caller, site };
}
