// The integration endpoints (flat envelope): the bridge's inbound action (an integrations:write key) and the
// outbound webhook endpoints with their delivery history and test delivery (admin; only under /v1).
import { getQuery, type H3, type H3Event } from 'h3';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { findWorkspaceBySlug } from '../tenants/queries/find-workspace.ts';
import { actorOf } from '../audit/record-audit.ts';
import { resolveWorkspace } from '../access/resolve-access.ts';
import { authenticate } from '../access/authenticate.ts';
import { canSeeWorkspace } from '../access/caller.ts';
import { readJsonBody } from '../http/body.ts';
import { ApiError } from '../http/errors.ts';
import { ListQuery } from '../http/pagination.ts';
import { jsonBody, namedInPath, needsCredential, queryParams, refusals, throttledCredential } from '../http/refusals.ts';
import { noContent } from '../http/respond.ts';
import { addRoute, type QueryParameterDoc } from '../http/routes.ts';
import { integerParam, parseBody, parseQuery } from '../http/validate.ts';
import { BridgeActionAnswer, CreatedEndpointAnswer, DeliveryAnswer, DeliveryPageAnswer, EndpointAnswer, EndpointListAnswer } from './answers.ts';
import { BridgeActionBody, recordBridgeAction } from './bridge-action.ts';
import type { DeliveryWorker } from './delivery-worker.ts';
import { listDeliveries, sendTestDelivery } from './deliveries.ts';
import { createEndpoint, CreateEndpointBody, deleteEndpoint, findEndpoint, listEndpoints, toEndpoint, updateEndpoint, UpdateEndpointBody } from './endpoints.ts';
import { pathParam } from '../http/path-params.ts';

/** Administrative answers (one carries the signing secret) are never stored by a cache. */
const noStore = { 'cache-control': 'no-store' };
const endpointsPath = '/workspaces/:slug/integrations/endpoints';

const idOf = (event: H3Event) => pathParam(event, 'id');

const listParams: QueryParameterDoc[] = [
  { name: 'limit', description: '1-1000, default 100', schema: { type: 'string', pattern: '^\\d+$' } },
  { name: 'cursor', description: 'The next_cursor of the previous page, unchanged (opaque)' },
];
const DeliveryQuery = v.object({
  limit: v.optional(integerParam(1, 100), '20'),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(512))),
});

export function mountIntegrations(app: H3, context: AppContext, worker: DeliveryWorker): void {
  addRoute(app, {
    method: 'POST',
    path: '/workspaces/:slug/integrations/bridge/actions',
    // 401 for a key that lacks integrations:write (spec, Automation bridge): never 403.
    refusals: refusals({ 401: ['unauthorized'] }, throttledCredential, namedInPath, jsonBody),
    summary: 'Record a lead signal from an automation platform (integrations:write; idempotent by idempotency_key)',
    body: BridgeActionBody,
    answer: BridgeActionAnswer,
    handler: async (event) => {
      const caller = authenticate(event, context);
      // The admin scope is a wildcard (spec, Authentication rule 2): an admin key or the admin token passes too.
      // A person (a user's session) is no automation platform: as without the scope, 401.
      if (caller.kind === 'user' || (caller.kind === 'apiKey' && !caller.scopes.includes('admin') && !caller.scopes.includes('integrations:write'))) {
        throw ApiError.unauthorized();
      }
      const workspace = findWorkspaceBySlug(context.db, pathParam(event, 'slug'));
      if (!workspace || !canSeeWorkspace(caller, workspace.id)) throw ApiError.notFound();
      const input = parseBody(BridgeActionBody, await readJsonBody(event));
      const result = recordBridgeAction(context, workspace, caller.kind === 'apiKey' ? caller.keyId : null, input);
      if (!result.replayed) worker.wake();
      return result;
    },
  });
  addRoute(app, {
    method: 'GET',
    path: endpointsPath,
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, queryParams),
    summary: 'List the outbound webhook endpoints of a workspace',
    query: listParams,
    answer: EndpointListAnswer,
    handler: (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      const query = parseQuery(ListQuery, getQuery(event));
      return listEndpoints(context, workspace, query.limit, query.cursor);
    },
  });
  addRoute(app, {
    method: 'POST',
    path: endpointsPath,
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Create an outbound webhook endpoint (its signing secret is returned once)',
    body: CreateEndpointBody,
    status: 201,
    answer: CreatedEndpointAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      const input = parseBody(CreateEndpointBody, await readJsonBody(event));
      return createEndpoint(context, actorOf(caller), workspace, input);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: `${endpointsPath}/:id`,
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Read an outbound webhook endpoint (never its secret)',
    answer: EndpointAnswer,
    handler: (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      return toEndpoint(findEndpoint(context, workspace, idOf(event)));
    },
  });
  addRoute(app, {
    method: 'PATCH',
    path: `${endpointsPath}/:id`,
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Change the URL, description, event types or status (active, disabled) of an endpoint',
    body: UpdateEndpointBody,
    answer: EndpointAnswer,
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      const patch = parseBody(UpdateEndpointBody, await readJsonBody(event));
      const endpoint = updateEndpoint(context, actorOf(caller), workspace, idOf(event), patch);
      if (endpoint.status === 'active') worker.wake();
      return endpoint;
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: `${endpointsPath}/:id`,
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Delete an endpoint with its delivery history (pending deliveries are dropped)',
    status: 204,
    handler: (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      deleteEndpoint(context, actorOf(caller), workspace, idOf(event));
      return noContent();
    },
  });
  addRoute(app, {
    method: 'GET',
    path: `${endpointsPath}/:id/deliveries`,
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, queryParams),
    summary: 'Delivery history of an endpoint, newest first, each delivery with its attempts',
    query: [
      { name: 'limit', description: '1-100, default 20', schema: { type: 'string', pattern: '^\\d+$' } },
      { name: 'cursor', description: 'The next_cursor of the previous page, unchanged (opaque)' },
    ],
    answer: DeliveryPageAnswer,
    handler: (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      const query = parseQuery(DeliveryQuery, getQuery(event));
      return listDeliveries(context, workspace, idOf(event), query.limit, query.cursor);
    },
  });
  addRoute(app, {
    method: 'POST',
    path: `${endpointsPath}/:id/test`,
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Send a webhook.test delivery now (once, not retried) and answer it with its attempt',
    answer: DeliveryAnswer,
    handler: (event) => {
      const { workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      return sendTestDelivery(context, worker, workspace, idOf(event));
    },
  });
}
