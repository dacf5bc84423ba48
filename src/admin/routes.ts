// Administration endpoints: workspaces, sites, keys and the audit log (flat envelope family).
import { getQuery, type H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { actorOf } from '../audit/record-audit.ts';
import { handleListAudit } from '../audit/list-audit.ts';
import { requireAdminToken, resolveWorkspace } from '../access/resolve-access.ts';
import { readJsonBody } from '../http/body.ts';
import { noContent } from '../http/respond.ts';
import { ListQuery } from '../http/pagination.ts';
import { jsonBody, namedInPath, needsCredential, queryParams, refusals } from '../http/refusals.ts';
import { addRoute, type QueryParameterDoc } from '../http/routes.ts';
import { parseBody, parseQuery } from '../http/validate.ts';
import { createKey, CreateKeyBody, listKeys, revokeKey } from './keys.ts';
import { createSite, CreateSiteBody, deleteSite, listSites, readSite, updateSite, UpdateSiteBody } from './sites.ts';
import {
  createWorkspace,
  CreateWorkspaceBody,
  listWorkspaces,
  toWorkspaceWithSettings,
  updateWorkspace,
  UpdateWorkspaceBody,
} from './workspaces.ts';
import {
  ApiKeyAnswer,
  AuditPageAnswer,
  CreatedApiKeyAnswer,
  CreatedWorkspaceAnswer,
  KeyListAnswer,
  SiteAnswer,
  SiteListAnswer,
  WorkspaceWithSettingsAnswer,
  WorkspaceListAnswer,
} from './answers.ts';
import { pathParam } from '../http/path-params.ts';

/**
 * Administrative answers are never stored by a browser or proxy cache: they answer the operator's token or an admin
 * key, and key creation carries the key's plaintext (issue 13).
 */
const noStore = { 'cache-control': 'no-store' };


const listParams: QueryParameterDoc[] = [
  { name: 'limit', description: '1-1000, default 100', schema: { type: 'string', pattern: '^\\d+$' } },
  { name: 'cursor', description: 'The next_cursor of the previous page, unchanged (opaque)' },
];
const auditParams: QueryParameterDoc[] = [
  { name: 'limit', description: '1-1000, default 100', schema: { type: 'string', pattern: '^\\d+$' } },
  { name: 'cursor', description: 'ISO-8601 timestamp with an offset; only entries strictly before it (default: the newest)' },
];

export function mountAdmin(app: H3, context: AppContext): void {
  addRoute(app, {
    method: 'GET',
    path: '/workspaces',
    headers: noStore,
    refusals: refusals(needsCredential, queryParams),
    summary: 'List workspaces',
    query: listParams,
    answer: WorkspaceListAnswer,
    handler: (event) => {
      requireAdminToken(event, context);
      const query = parseQuery(ListQuery, getQuery(event));
      return listWorkspaces(context, query.limit, query.cursor);
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/workspaces',
    headers: noStore,
    refusals: refusals(needsCredential, jsonBody, { 409: ['slug_taken'] }),
    summary: 'Create a workspace',
    body: CreateWorkspaceBody,
    status: 201,
    answer: CreatedWorkspaceAnswer,
    handler: async (event) => {
      const caller = requireAdminToken(event, context);
      const input = parseBody(CreateWorkspaceBody, await readJsonBody(event));
      const workspace = createWorkspace(context, actorOf(caller), input);
      return { id: workspace.id, name: workspace.name, slug: workspace.slug, created_at: workspace.created_at };
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Read a workspace and its settings',
    answer: WorkspaceWithSettingsAnswer,
    handler: (event) => toWorkspaceWithSettings(context, resolveWorkspace(event, context, pathParam(event, 'slug'), { adminToken: true }).workspace),
  });
  addRoute(app, {
    method: 'PATCH',
    path: '/workspaces/:slug',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Rename a workspace (the slug cannot change) or require a second factor of its members (require_2fa; owners, operators, the admin token)',
    body: UpdateWorkspaceBody,
    answer: WorkspaceWithSettingsAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { adminToken: true });
      const input = parseBody(UpdateWorkspaceBody, await readJsonBody(event));
      return updateWorkspace(context, actorOf(caller), workspace, input);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug/sites',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, queryParams),
    summary: 'List the sites of a workspace',
    query: listParams,
    answer: SiteListAnswer,
    handler: (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { adminToken: true });
      const query = parseQuery(ListQuery, getQuery(event));
      return listSites(context, workspace, query.limit, query.cursor);
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/workspaces/:slug/sites',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody, { 409: ['site_id_taken'] }),
    summary: 'Create a site',
    body: CreateSiteBody,
    status: 201,
    answer: SiteAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { adminToken: true });
      const input = parseBody(CreateSiteBody, await readJsonBody(event));
      return createSite(context, actorOf(caller), workspace, input);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug/sites/:id',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Read a site and its settings (cookieless visitors, retention period)',
    answer: SiteAnswer,
    handler: (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { adminToken: true });
      return readSite(context, workspace, pathParam(event, 'id'));
    },
  });
  addRoute(app, {
    method: 'PATCH',
    path: '/workspaces/:slug/sites/:id',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Rename a site, turn cookieless visitors on or off, or set its retention period (retention_days: 1-3650 whole UTC days, or null to keep forever)',
    body: UpdateSiteBody,
    answer: SiteAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { adminToken: true });
      const input = parseBody(UpdateSiteBody, await readJsonBody(event));
      return updateSite(context, actorOf(caller), workspace.id, pathParam(event, 'id'), input);
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/workspaces/:slug/sites/:id',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Delete a site and all of its data',
    status: 204,
    handler: (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { adminToken: true });
      deleteSite(context, actorOf(caller), workspace, pathParam(event, 'id'));
      return noContent();
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug/keys',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, queryParams),
    summary: 'List API keys (metadata only, revoked keys included)',
    query: listParams,
    answer: KeyListAnswer,
    handler: (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      const query = parseQuery(ListQuery, getQuery(event));
      return listKeys(context, workspace, query.limit, query.cursor);
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/workspaces/:slug/keys',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Create an API key (the plaintext is returned once)',
    body: CreateKeyBody,
    status: 201,
    answer: CreatedApiKeyAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      const input = parseBody(CreateKeyBody, await readJsonBody(event));
      return createKey(context, actorOf(caller), workspace, input);
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/workspaces/:slug/keys/:keyId',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Revoke an API key',
    answer: ApiKeyAnswer,
    handler: (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      return revokeKey(context, actorOf(caller), workspace, pathParam(event, 'keyId'));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug/audit',
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, queryParams),
    summary: 'Read the audit log, newest first',
    query: auditParams,
    answer: AuditPageAnswer,
    handler: handleListAudit(context),
  });
}
