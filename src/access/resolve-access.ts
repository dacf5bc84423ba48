// The one access resolver: a workspace or site the caller may not see answers exactly like a missing one (404).
import type { H3Event } from 'h3';
import { ApiError } from '../http/errors.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { authenticate } from './authenticate.ts';
import { type Caller, hasScope, type Scope } from './caller.ts';
import type { AccessContext } from './lookups.ts';

/** What an endpoint needs: the operator's admin token, or a scope (which the admin token also satisfies). */
export type Requirement = { adminToken: true } | { scope: Scope };

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
  if (caller.kind !== 'admin') throw new ApiError(403, 'forbidden_scope', 'This action needs the admin token');
  return caller;
}

/**
 * Authenticates, finds the workspace and checks the requirement. Missing and foreign workspaces are the same 404;
 * a caller who can see the workspace but lacks the scope gets 403 forbidden_scope.
 */
export function resolveWorkspace(event: H3Event, context: AccessContext, slug: string, requirement: Requirement): WorkspaceAccess {
  const caller = authenticate(event, context);
  const workspace = context.access.findWorkspaceBySlug(slug);
  if (!workspace || (caller.kind === 'apiKey' && caller.workspaceId !== workspace.id)) throw ApiError.notFound();
  checkRequirement(caller, requirement);
  return { caller, workspace };
}

/** As resolveWorkspace, for /sites/:siteId endpoints. */
export function resolveSite(event: H3Event, context: AccessContext, siteId: string, requirement: Requirement): SiteAccess {
  const caller = authenticate(event, context);
  return { caller, site: resolveSiteForCaller(context, caller, siteId, requirement) };
}

export function resolveSiteForCaller(context: AccessContext, caller: Caller, siteId: string, requirement: Requirement): SiteRow {
  const site = context.access.findSite(siteId);
  if (!site || (caller.kind === 'apiKey' && caller.workspaceId !== site.workspace_id)) throw ApiError.notFound();
  checkRequirement(caller, requirement);
  return site;
}

function checkRequirement(caller: Caller, requirement: Requirement): void {
  if ('adminToken' in requirement) {
    if (caller.kind !== 'admin') throw new ApiError(403, 'forbidden_scope', 'This action needs the admin token');
    return;
  }
  if (!hasScope(caller, requirement.scope)) throw ApiError.forbiddenScope(requirement.scope);
}
