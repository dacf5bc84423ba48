// Who is calling, in the words every domain checks: the operator (admin token), an API key of one workspace with
// its scopes, or a person (a user signed in through the UI's session cookie) with a role in each of their
// workspaces. Authentication (authenticate.ts) produces it; the resolver (resolve-access.ts) and actions read it.

export const allScopes = ['ingest:write', 'query:read', 'admin', 'integrations:write'] as const;
export type Scope = (typeof allScopes)[number];

export const allRoles = ['owner', 'admin', 'analyst', 'viewer'] as const;
/** A user's role in one workspace (CONTRACT section 9; docs/people.md has the table of what each may do). */
export type Role = (typeof allRoles)[number];

export type Caller =
  | { kind: 'admin' }
  | { kind: 'apiKey'; keyId: string; workspaceId: string; scopes: readonly Scope[] }
  | { kind: 'user'; userId: string; operator: boolean; roles: Readonly<Record<string, Role>> };

/**
 * The scopes a role carries inside its workspace: owner and admin the admin wildcard, analyst and viewer query:read
 * (a viewer only on the dashboards' reads: see canReadBeyondDashboards).
 */
export function scopesOfRole(role: Role): readonly Scope[] {
  return role === 'owner' || role === 'admin' ? ['admin'] : ['query:read'];
}

/** Whether the caller may see the workspace at all (anything else is the 404 of a missing one). */
export function canSeeWorkspace(caller: Caller, workspaceId: string): boolean {
  if (caller.kind === 'admin') return true;
  if (caller.kind === 'apiKey') return caller.workspaceId === workspaceId;
  return caller.operator || workspaceId in caller.roles;
}

/** The admin scope is a wildcard (spec, Authentication rule 2); a user's scopes are those of its role there. */
export function hasScope(caller: Caller, scope: Scope, workspaceId: string): boolean {
  if (caller.kind === 'admin') return true;
  if (caller.kind === 'apiKey') return caller.workspaceId === workspaceId && (caller.scopes.includes('admin') || caller.scopes.includes(scope));
  if (caller.operator) return true;
  const role = caller.roles[workspaceId];
  if (!role) return false;
  const scopes = scopesOfRole(role);
  return scopes.includes('admin') || scopes.includes(scope);
}

/** A viewer reads the dashboards (a site's reports) and nothing else: events, the stream, analysis, spend are refused. */
export function canReadBeyondDashboards(caller: Caller, workspaceId: string): boolean {
  return caller.kind !== 'user' || caller.operator || caller.roles[workspaceId] !== 'viewer';
}

/**
 * Whether the caller may do what only the operator (admin token) may do inside this workspace (rename it, its
 * sites): the admin token, a platform operator, or the workspace's owner.
 */
export function actsAsOperatorIn(caller: Caller, workspaceId: string): boolean {
  if (caller.kind === 'admin') return true;
  if (caller.kind === 'apiKey') return false;
  return caller.operator || caller.roles[workspaceId] === 'owner';
}

/** The admin token or a platform operator: the endpoints without a workspace (GET/POST /workspaces, /metrics). */
export function isOperator(caller: Caller): boolean {
  return caller.kind === 'admin' || (caller.kind === 'user' && caller.operator);
}

/**
 * Whether the caller manages only what it made itself in this workspace (an analyst's own share links, and later its
 * saved segments and annotations): a user whose role there is analyst. Callers with the admin scope manage all.
 */
export function managesOwnOnly(caller: Caller, workspaceId: string): boolean {
  return caller.kind === 'user' && !caller.operator && caller.roles[workspaceId] === 'analyst';
}
