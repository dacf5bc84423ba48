// Who is calling, in the words every domain checks: the operator (admin token) or an API key of one workspace with
// its scopes. Authentication (authenticate.ts) produces it; the resolver (resolve-access.ts) and actions read it.

export const allScopes = ['ingest:write', 'query:read', 'admin', 'integrations:write'] as const;
export type Scope = (typeof allScopes)[number];

export type Caller =
  | { kind: 'admin' }
  | { kind: 'apiKey'; keyId: string; workspaceId: string; scopes: readonly Scope[] };

/** The admin scope is a wildcard (spec, Authentication rule 2). */
export function hasScope(caller: Caller, scope: Scope): boolean {
  return caller.kind === 'admin' || caller.scopes.includes('admin') || caller.scopes.includes(scope);
}
