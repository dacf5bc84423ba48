// The outbox: one row per (change, subscribed endpoint), written in the change's transaction; the worker finds the
// due rows, and records each attempt beside the row's new state.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface OutboxRow {
  id: string;
  endpoint_id: string;
  type: string;
  body: string;
  created_at: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  max_attempts: number;
  next_attempt_at: number;
}

export interface SubscribedEndpointRow {
  id: string;
}

export interface OutboxPageParams {
  endpointId: string;
  beforeCreatedAt: string;
  beforeId: string;
  limit: number;
}

const columns = 'id, endpoint_id, type, body, created_at, status, attempts, max_attempts, next_attempt_at';

const statements = preparedOnce((db) => ({
  subscribed: db.prepare<{ workspace_id: string; type: string; changed_at: string }, SubscribedEndpointRow>(
    `SELECT e.id FROM webhook_endpoints e
     WHERE e.workspace_id = :workspace_id AND e.status = 'active' AND e.created_at <= :changed_at
       AND EXISTS (SELECT 1 FROM json_each(e.event_types) WHERE value = :type)
     ORDER BY e.id`,
  ),
  insert: db.prepare<OutboxRow>(
    `INSERT INTO webhook_outbox (${columns}) VALUES (:id, :endpoint_id, :type, :body, :created_at, :status, :attempts, :max_attempts, :next_attempt_at)
     ON CONFLICT (id) DO NOTHING`,
  ),
  due: db.prepare<{ now: number; limit: number }, OutboxRow>(
    `SELECT o.* FROM webhook_outbox o JOIN webhook_endpoints e ON e.id = o.endpoint_id
     WHERE o.status = 'pending' AND o.next_attempt_at <= :now AND e.status = 'active' ORDER BY o.next_attempt_at, o.id LIMIT :limit`,
  ),
  byId: db.prepare<[string], OutboxRow>(`SELECT ${columns} FROM webhook_outbox WHERE id = ?`),
  settle: db.prepare<{ id: string; status: string; next_attempt_at: number }>(
    'UPDATE webhook_outbox SET attempts = attempts + 1, status = :status, next_attempt_at = :next_attempt_at WHERE id = :id',
  ),
  depth: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM webhook_outbox WHERE status = 'pending'"),
  page: db.prepare<OutboxPageParams, OutboxRow>(
    `SELECT ${columns} FROM webhook_outbox WHERE endpoint_id = :endpointId AND (created_at, id) < (:beforeCreatedAt, :beforeId)
     ORDER BY created_at DESC, id DESC LIMIT :limit`,
  ),
}));

/** Active endpoints of the workspace subscribed to `type` that existed when the change happened (ISO `changedAt`). */
export function listSubscribedEndpoints(db: Db, workspaceId: string, type: string, changedAt: string): SubscribedEndpointRow[] {
  return statements(db).subscribed.all({ workspace_id: workspaceId, type, changed_at: changedAt });
}

/** Inserts the row unless its id exists (the same change announced again is not sent twice). */
export function insertOutboxRow(db: Db, row: OutboxRow): boolean {
  return statements(db).insert.run(row).changes > 0;
}

/** Pending rows of active endpoints due at `now`, the longest waiting first. */
export function listDueOutboxRows(db: Db, now: number, limit: number): OutboxRow[] {
  return statements(db).due.all({ now, limit });
}

export function findOutboxRow(db: Db, id: string): OutboxRow | undefined {
  return statements(db).byId.get(id);
}

/** One more attempt made: the row's new status and when the next is due. */
export function settleOutboxRow(db: Db, id: string, status: OutboxRow['status'], nextAttemptAt: number): void {
  statements(db).settle.run({ id, status, next_attempt_at: nextAttemptAt });
}

export function countPendingOutboxRows(db: Db): number {
  return statements(db).depth.get()!.n;
}

/** An endpoint's deliveries, newest first, before the (created_at, id) of the cursor. */
export function listOutboxPage(db: Db, params: OutboxPageParams): OutboxRow[] {
  return statements(db).page.all(params);
}
