// Outbound webhook endpoints of a workspace, shared by the HTTP routes and the CLI: create (the signing secret shown
// once), list, read, update, delete. Every change is audited, never with the secret.
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { afterParams, decodePageCursor, toPage } from '../http/pagination.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { sealSecret } from '../secrets/secret-box.ts';
import { isRefusedLiteralHost } from './address-guard.ts';
import { type SubscribableEventType, subscribableEventTypes } from './event-types.ts';
import {
  countEndpoints,
  deleteEndpointRow,
  type EndpointRow,
  findEndpointInWorkspace,
  insertEndpoint,
  listEndpointRows,
  updateEndpointRow,
} from './queries/endpoint-rows.ts';
import { secretBytes, toSecretText } from './signature.ts';

export const maxEndpointsPerWorkspace = 20;
export const maxUrlLength = 2048;
export const maxDescriptionLength = 200;

const WebhookUrl = v.pipe(
  v.string('must be a string'),
  v.maxLength(maxUrlLength, `must be at most ${maxUrlLength} characters`),
  v.check((text) => URL.canParse(text), 'must be an absolute URL'),
  v.check((text) => /^https?:$/.test(new URL(text).protocol), 'must be an http or https URL'),
  v.check((text) => !new URL(text).username && !new URL(text).password, 'must not carry credentials'),
);
const Description = v.nullable(
  v.pipe(
    v.string('must be a string'),
    v.maxLength(maxDescriptionLength, `must be at most ${maxDescriptionLength} characters`),
    v.check((text) => !/[\p{Cc}]/u.test(text), 'must not contain control characters'),
  ),
);
const EventTypes = v.pipe(
  v.array(v.picklist(subscribableEventTypes, `must be one of ${subscribableEventTypes.join(', ')}`), 'must be an array of event types'),
  v.minLength(1, 'must name at least one event type'),
  v.check((types) => new Set(types).size === types.length, 'must not repeat an event type'),
);

export const CreateEndpointBody = v.strictObject({
  url: WebhookUrl,
  description: v.optional(Description),
  event_types: EventTypes,
});
export type CreateEndpointInput = v.InferOutput<typeof CreateEndpointBody>;

export const UpdateEndpointBody = v.pipe(
  v.strictObject({
    url: v.optional(WebhookUrl),
    description: v.optional(Description),
    event_types: v.optional(EventTypes),
    status: v.optional(v.picklist(['active', 'disabled'], 'must be active or disabled')),
  }),
  v.check((patch) => Object.keys(patch).length > 0, 'must change at least one field'),
);
export type UpdateEndpointInput = v.InferOutput<typeof UpdateEndpointBody>;

export interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  event_types: SubscribableEventType[];
  status: 'active' | 'disabled';
  /** 'gone' when the receiver answered 410, 'operator' when disabled by hand; null while active. */
  disabled_reason: 'gone' | 'operator' | null;
  created_at: string;
  updated_at: string;
}

export interface CreatedEndpoint extends Endpoint {
  secret: string;
  warning: string;
}

export const secretWarning = 'Save this signing secret now: it is shown only once. To change it, delete the endpoint and create a new one.';

export function toEndpoint(row: EndpointRow): Endpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: JSON.parse(row.event_types) as SubscribableEventType[],
    status: row.status,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** An IP literal that deliveries would refuse is refused at once (a host name is checked at every connect). */
function checkTarget(context: AppContext, url: string): void {
  if (context.config.allowPrivateWebhookTargets) return;
  if (isRefusedLiteralHost(new URL(url).hostname)) {
    throw ApiError.invalidPayload([{ path: '/url', message: 'must not address a private, loopback, link-local or reserved address' }]);
  }
}

export function createEndpoint(context: AppContext, actor: Actor, workspace: WorkspaceRow, input: CreateEndpointInput): CreatedEndpoint {
  checkTarget(context, input.url);
  const secret = context.random.bytes(secretBytes);
  const id = context.random.uuid();
  // Sealed outside the transaction: the first seal of a data directory creates its key file.
  const sealed = sealSecret(context.config.dataDir, context.random, secret, id);
  return inWriteTransaction(context.db, () => {
    if (countEndpoints(context.db, workspace.id) >= maxEndpointsPerWorkspace) {
      throw ApiError.invalidPayload([{ path: '', message: `a workspace has at most ${maxEndpointsPerWorkspace} endpoints` }]);
    }
    const now = toIso(context.clock.now());
    const row: EndpointRow = {
      id,
      workspace_id: workspace.id,
      url: input.url,
      description: input.description ?? null,
      event_types: JSON.stringify(input.event_types),
      status: 'active',
      disabled_reason: null,
      created_at: now,
      updated_at: now,
    };
    insertEndpoint(context.db, { ...row, secret_sealed: sealed });
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'endpoint.create', target: row.id, metadata: { url: row.url, event_types: input.event_types } });
    return { ...toEndpoint(row), secret: toSecretText(secret), warning: secretWarning };
  });
}

export function listEndpoints(context: AppContext, workspace: WorkspaceRow, limit: number, cursor?: string): { endpoints: Endpoint[]; next_cursor: string | null } {
  const rows = listEndpointRows(context.db, { workspaceId: workspace.id, ...afterParams(decodePageCursor(cursor)), limit: limit + 1 });
  const page = toPage(rows, limit);
  return { endpoints: page.rows.map(toEndpoint), next_cursor: page.nextCursor };
}

/** The endpoint of this workspace; a missing or foreign one is the same 404. */
export function findEndpoint(context: AppContext, workspace: WorkspaceRow, id: string): EndpointRow {
  const row = findEndpointInWorkspace(context.db, workspace.id, id);
  if (!row) throw ApiError.notFound();
  return row;
}

export function updateEndpoint(context: AppContext, actor: Actor, workspace: WorkspaceRow, id: string, patch: UpdateEndpointInput): Endpoint {
  if (patch.url !== undefined) checkTarget(context, patch.url);
  return inWriteTransaction(context.db, () => {
    const row = findEndpoint(context, workspace, id);
    const status = patch.status ?? row.status;
    const updated: EndpointRow = {
      ...row,
      url: patch.url ?? row.url,
      description: patch.description !== undefined ? patch.description : row.description,
      event_types: patch.event_types ? JSON.stringify(patch.event_types) : row.event_types,
      status,
      disabled_reason: status === 'active' ? null : patch.status === 'disabled' ? 'operator' : row.disabled_reason,
      updated_at: toIso(context.clock.now()),
    };
    updateEndpointRow(context.db, updated);
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'endpoint.update', target: row.id, metadata: { changed: Object.keys(patch).sort() } });
    return toEndpoint(updated);
  });
}

/** Deletes the endpoint and its delivery history; pending deliveries to it are dropped. */
export function deleteEndpoint(context: AppContext, actor: Actor, workspace: WorkspaceRow, id: string): void {
  inWriteTransaction(context.db, () => {
    const row = findEndpointInWorkspace(context.db, workspace.id, id);
    if (!row || !deleteEndpointRow(context.db, workspace.id, id)) throw ApiError.notFound();
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'endpoint.delete', target: id, metadata: { url: row.url } });
  });
}
