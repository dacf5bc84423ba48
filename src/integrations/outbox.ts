// Writes a change's announcements into the outbox, inside the caller's transaction: one row per active endpoint of
// the workspace subscribed to the type. The row's id (the webhook-id) is derived from the endpoint and the change,
// so announcing the same change again (a replayed batch) inserts nothing.
import { createHash } from 'node:crypto';
import { toIso } from '../clock.ts';
import type { Db } from '../db/open.ts';
import { findWorkspaceById } from '../tenants/queries/find-workspace.ts';
import { toPayloadText } from './event-types.ts';
import { findEndpointInWorkspace } from './queries/endpoint-rows.ts';
import { insertOutboxRow, listSubscribedEndpoints } from './queries/outbox-rows.ts';
import { maxAttempts } from './retry-schedule.ts';

export interface Announcement {
  workspaceId: string;
  type: string;
  /** What changed, unique across the workspace's changes (e.g. `bridge:<action id>`, `event:<site>:<event id>`). */
  changeKey: string;
  data: Record<string, unknown>;
  now: number;
  /**
   * When the change happened (an event's commit time; default `now`): only endpoints created by then hear of it, so
   * a projection derived again from the event log (src/projector/reconcile.ts) does not announce a year of old
   * purchases to an endpoint created yesterday.
   */
  changedAt?: number;
}

/** A webhook-id: `msg_` and 128 bits of SHA-256 over the endpoint and the change. */
export function messageIdOf(endpointId: string, changeKey: string): string {
  return `msg_${createHash('sha256').update(`${endpointId}\u0000${changeKey}`).digest('base64url').slice(0, 22)}`;
}

/**
 * Must run inside the change's write transaction. Returns how many rows were written.
 * @example inWriteTransaction(db, () => { insertBridgeAction(db, row); announce(db, { workspaceId, type, changeKey, data, now }); });
 */
export function announce(db: Db, announcement: Announcement): number {
  let written = 0;
  const createdAt = toIso(announcement.now);
  const changedAt = toIso(announcement.changedAt ?? announcement.now);
  const endpoints = listSubscribedEndpoints(db, announcement.workspaceId, announcement.type, changedAt);
  // The payload names the workspace by its slug too: looked up once, and only when some endpoint listens.
  const workspaceSlug = endpoints.length === 0 ? undefined : findWorkspaceById(db, announcement.workspaceId)?.slug;
  if (workspaceSlug === undefined) return 0;
  for (const endpoint of endpoints) {
    const id = messageIdOf(endpoint.id, announcement.changeKey);
    const body = toPayloadText({ id, type: announcement.type, createdAt, workspaceId: announcement.workspaceId, workspaceSlug, data: announcement.data });
    const row = { id, endpoint_id: endpoint.id, type: announcement.type, body, created_at: createdAt, status: 'pending' as const, attempts: 0, max_attempts: maxAttempts, next_attempt_at: announcement.now };
    if (insertOutboxRow(db, row)) written++;
  }
  return written;
}

/**
 * Writes one delivery to one endpoint of the workspace (an alert names its endpoint: no subscription is looked at),
 * inside the caller's transaction. False when the endpoint is not an active one of the workspace, or the same change
 * was announced to it before.
 * @example inWriteTransaction(db, () => announceToEndpoint(db, { endpointId, workspaceId, type: alertTriggered, changeKey, data, now }));
 */
export function announceToEndpoint(db: Db, announcement: Omit<Announcement, 'changedAt'> & { endpointId: string }): boolean {
  const endpoint = findEndpointInWorkspace(db, announcement.workspaceId, announcement.endpointId);
  const workspace = findWorkspaceById(db, announcement.workspaceId);
  if (!endpoint || endpoint.status !== 'active' || !workspace) return false;
  const id = messageIdOf(endpoint.id, announcement.changeKey);
  const createdAt = toIso(announcement.now);
  const body = toPayloadText({ id, type: announcement.type, createdAt, workspaceId: workspace.id, workspaceSlug: workspace.slug, data: announcement.data });
  return insertOutboxRow(db, { id, endpoint_id: endpoint.id, type: announcement.type, body, created_at: createdAt, status: 'pending', attempts: 0, max_attempts: maxAttempts, next_attempt_at: announcement.now });
}
