// The one access resolver: a workspace or site the caller may not see answers exactly like a missing one (404).
import type { H3Event } from 'h3';
import { ApiError } from '../http/errors.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { authenticate } from './authenticate.ts';
import { actsAsOperatorIn, type Caller, canReadBeyondDashboards, canSeeWorkspace, hasScope, isOperator, type Role, type Scope } from './caller.ts';
import type { AccessContext } from './lookups.ts';

/**
 * What an endpoint needs: the operator's admin token (inside a workspace its owner and platform operators pass too),
 * a workspace role (`owner`: the admin token and operators pass too), or a scope (which the admin token also
 * satisfies). A scope of query:read marked `dashboard` is what a viewer may read; other reads refuse viewers.
 */
export type Requirement = { adminToken: true } | { role: Extract<Role, 'owner'> } | { scope: Scope; dashboard?: true };

export interface WorkspaceAccess {
  caller: Caller;
  workspace: WorkspaceRow;
}

export interface SiteAccess {
  caller: Caller;
  site: SiteRow;
}

/** For endpoints without a workspace in the path (GET/POST /workspaces): only the admin token. */
export function requireAdminToken(event: H3Event, context: AccessContext): Caller {
  const caller = authenticate(event, context);
  if (!isOperator(caller)) throw new ApiError(403, 'forbidden_scope', 'This action needs the admin token');
  return caller;
}

/**
 * Authenticates, finds the workspace and checks the requirement. Missing and foreign workspaces are the same 404;
 * a caller who can see the workspace but lacks the scope gets 403 forbidden_scope.
 */
export function resolveWorkspace(event: H3Event, context: AccessContext, slug: string, requirement: Requirement): WorkspaceAccess {
  const caller = authenticate(event, context);
  const workspace = context.access.findWorkspaceBySlug(slug);
  if (!workspace || !canSeeWorkspace(caller, workspace.id)) throw ApiError.notFound();
  checkRequirement(caller, requirement, workspace.id);
  return { caller, workspace };
}

/** As resolveWorkspace, for /sites/:siteId endpoints. */
export function resolveSite(event: H3Event, context: AccessContext, siteId: string, requirement: Requirement): SiteAccess {
  const caller = authenticate(event, context);
  return { caller, site: resolveSiteForCaller(context, caller, siteId, requirement) };
}

export function resolveSiteForCaller(context: AccessContext, caller: Caller, siteId: string, requirement: Requirement): SiteRow {
  const site = context.access.findSite(siteId);
  if (!site || !canSeeWorkspace(caller, site.workspace_id)) throw ApiError.notFound();
  checkRequirement(caller, requirement, site.workspace_id);
  return site;
}

/**
 * Checks a requirement for a caller who may see the workspace (403 forbidden_scope otherwise): for resolvers of
 * their own (the consent banner's), so every route applies the same rules.
 */
export function checkRequirement(caller: Caller, requirement: Requirement, workspaceId: string): void {
  if ('adminToken' in requirement) {
    if (!actsAsOperatorIn(caller, workspaceId)) throw new ApiError(403, 'forbidden_scope', 'This action needs the admin token');
    return;
  }
  if ('role' in requirement) {
    if (!actsAsOperatorIn(caller, workspaceId)) throw new ApiError(403, 'forbidden_scope', 'This action needs the owner role');
    return;
  }
  if (!hasScope(caller, requirement.scope, workspaceId)) throw ApiError.forbiddenScope(requirement.scope);
  if (!requirement.dashboard && !canReadBeyondDashboards(caller, workspaceId)) {
    throw new ApiError(403, 'forbidden_scope', 'A viewer reads the dashboards (site reports) only');
  }
}
