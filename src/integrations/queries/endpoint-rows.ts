// Webhook endpoint rows of a workspace: insert, page, find, update, delete (with their outbox and attempts).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  /** JSON array of event type names. */
  event_types: string;
  status: 'active' | 'disabled';
  disabled_reason: 'gone' | 'operator' | null;
  created_at: string;
  updated_at: string;
}

export interface SealedEndpointRow extends EndpointRow {
  secret_sealed: Buffer;
}

export interface ListEndpointsParams {
  workspaceId: string;
  afterCreatedAt: string;
  afterId: string;
  limit: number;
}

const columns = 'id, workspace_id, url, description, event_types, status, disabled_reason, created_at, updated_at';

const statements = preparedOnce((db) => ({
  insert: db.prepare<SealedEndpointRow>(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, description, event_types, secret_sealed, status, disabled_reason, created_at, updated_at)
     VALUES (:id, :workspace_id, :url, :description, :event_types, :secret_sealed, :status, :disabled_reason, :created_at, :updated_at)`,
  ),
  page: db.prepare<ListEndpointsParams, EndpointRow>(
    `SELECT ${columns} FROM webhook_endpoints WHERE workspace_id = :workspaceId AND (created_at, id) > (:afterCreatedAt, :afterId)
     ORDER BY created_at, id LIMIT :limit`,
  ),
  count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM webhook_endpoints WHERE workspace_id = ?'),
  inWorkspace: db.prepare<[string, string], EndpointRow>(`SELECT ${columns} FROM webhook_endpoints WHERE workspace_id = ? AND id = ?`),
  sealed: db.prepare<[string], SealedEndpointRow>(`SELECT ${columns}, secret_sealed FROM webhook_endpoints WHERE id = ?`),
  update: db.prepare<EndpointRow>(
    `UPDATE webhook_endpoints SET url = :url, description = :description, event_types = :event_types, status = :status,
       disabled_reason = :disabled_reason, updated_at = :updated_at WHERE id = :id AND workspace_id = :workspace_id`,
  ),
  disable: db.prepare<[string, string, string]>(
    "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ?, updated_at = ? WHERE id = ? AND status = 'active'",
  ),
  deleteAttempts: db.prepare<[string]>('DELETE FROM webhook_attempts WHERE outbox_id IN (SELECT id FROM webhook_outbox WHERE endpoint_id = ?)'),
  deleteOutbox: db.prepare<[string]>('DELETE FROM webhook_outbox WHERE endpoint_id = ?'),
  delete: db.prepare<[string, string]>('DELETE FROM webhook_endpoints WHERE workspace_id = ? AND id = ?'),
}));

export function insertEndpoint(db: Db, row: SealedEndpointRow): void {
  statements(db).insert.run(row);
}

export function listEndpointRows(db: Db, params: ListEndpointsParams): EndpointRow[] {
  return statements(db).page.all(params);
}

export function countEndpoints(db: Db, workspaceId: string): number {
  return statements(db).count.get(workspaceId)!.n;
}

/** The endpoint when it belongs to the workspace; a foreign one is undefined, like a missing one. */
export function findEndpointInWorkspace(db: Db, workspaceId: string, id: string): EndpointRow | undefined {
  return statements(db).inWorkspace.get(workspaceId, id);
}

/** With its sealed secret, for the delivery worker. */
export function findSealedEndpoint(db: Db, id: string): SealedEndpointRow | undefined {
  return statements(db).sealed.get(id);
}

export function updateEndpointRow(db: Db, row: EndpointRow): void {
  statements(db).update.run(row);
}

/** Disables an active endpoint (a 410 from its receiver); false when it was not active. */
export function disableEndpoint(db: Db, id: string, reason: string, now: string): boolean {
  return statements(db).disable.run(reason, now, id).changes > 0;
}

/** Deletes the endpoint with its outbox rows and their attempts; false when the workspace has no such endpoint. */
export function deleteEndpointRow(db: Db, workspaceId: string, id: string): boolean {
  const found = statements(db).inWorkspace.get(workspaceId, id);
  if (!found) return false;
  statements(db).deleteAttempts.run(id);
  statements(db).deleteOutbox.run(id);
  return statements(db).delete.run(workspaceId, id).changes > 0;
}
