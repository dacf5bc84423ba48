// An endpoint's delivery history (newest first, each with its attempts) and the test delivery.
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { decodePageCursor, encodePageCursor } from '../http/pagination.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import type { DeliveryWorker } from './delivery-worker.ts';
import { findEndpoint } from './endpoints.ts';
import { messageIdOf } from './outbox.ts';
import { publicExcerpt, publicOutcome } from './public-failure.ts';
import { toPayloadText, webhookTest } from './event-types.ts';
import { type AttemptOutcome, type AttemptRow, listAttemptsOf } from './queries/attempt-rows.ts';
import { insertOutboxRow, listOutboxPage, type OutboxRow } from './queries/outbox-rows.ts';

export interface DeliveryAttempt {
  attempted_at: string;
  outcome: AttemptOutcome;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
}

export interface Delivery {
  /** The webhook-id header of every attempt. */
  id: string;
  type: string;
  status: OutboxRow['status'];
  attempts: number;
  /** When the next attempt is due; null once delivered or failed. */
  next_attempt_at: string | null;
  created_at: string;
  history: DeliveryAttempt[];
}

/** Attempts recorded before public-failure.ts held the guard's or the connection's error text: shown as new ones are. */
function toAttempt(row: AttemptRow): DeliveryAttempt {
  const outcome = publicOutcome(row.outcome);
  return { attempted_at: row.attempted_at, outcome, status_code: row.status_code, latency_ms: row.latency_ms, response_excerpt: publicExcerpt(row.outcome, row.response_excerpt) };
}

export function toDelivery(context: AppContext, row: OutboxRow): Delivery {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? toIso(row.next_attempt_at) : null,
    created_at: row.created_at,
    history: listAttemptsOf(context.db, row.id).map(toAttempt),
  };
}

/** One page of the endpoint's deliveries, newest first (limit 1-100). */
export function listDeliveries(context: AppContext, workspace: WorkspaceRow, endpointId: string, limit: number, cursor?: string): { deliveries: Delivery[]; next_cursor: string | null } {
  const endpoint = findEndpoint(context, workspace, endpointId);
  const before = decodePageCursor(cursor);
  // '~' sorts after every stored timestamp and id: no cursor starts before the newest row.
  const rows = listOutboxPage(context.db, { endpointId: endpoint.id, beforeCreatedAt: before?.created_at ?? '~', beforeId: before?.id ?? '~', limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    deliveries: page.map((row) => toDelivery(context, row)),
    next_cursor: rows.length > limit ? encodePageCursor({ created_at: page[page.length - 1]!.created_at, id: page[page.length - 1]!.id }) : null,
  };
}

/**
 * Sends a webhook.test delivery to the endpoint now, once (never retried), and answers it with its one attempt.
 * A disabled endpoint is tested too: that is how an operator checks it before enabling it again.
 */
export async function sendTestDelivery(context: AppContext, worker: DeliveryWorker, workspace: WorkspaceRow, endpointId: string): Promise<Delivery> {
  const endpoint = findEndpoint(context, workspace, endpointId);
  const now = context.clock.now();
  const id = messageIdOf(endpoint.id, `test:${context.random.uuid()}`);
  const createdAt = toIso(now);
  const body = toPayloadText({ id, type: webhookTest, createdAt, workspaceId: workspace.id, workspaceSlug: workspace.slug, data: { endpoint_id: endpoint.id } });
  // Due never: only this call sends it, so the timer cannot send it a second time.
  inWriteTransaction(context.db, () =>
    insertOutboxRow(context.db, { id, endpoint_id: endpoint.id, type: webhookTest, body, created_at: createdAt, status: 'pending', attempts: 0, max_attempts: 1, next_attempt_at: Number.MAX_SAFE_INTEGER }),
  );
  const row = await worker.deliverNow(id);
  return toDelivery(context, row!);
}
