// Bridge action rows: insert one, find one by its workspace's idempotency key.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface BridgeActionRow {
  id: string;
  workspace_id: string;
  idempotency_key: string;
  lead_id: string;
  action: string;
  signal: string;
  key_id: string | null;
  recorded_at: string;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<BridgeActionRow>(
    `INSERT INTO bridge_actions (id, workspace_id, idempotency_key, lead_id, action, signal, key_id, recorded_at)
     VALUES (:id, :workspace_id, :idempotency_key, :lead_id, :action, :signal, :key_id, :recorded_at)`,
  ),
  byKey: db.prepare<[string, string], BridgeActionRow>(
    'SELECT id, workspace_id, idempotency_key, lead_id, action, signal, key_id, recorded_at FROM bridge_actions WHERE workspace_id = ? AND idempotency_key = ?',
  ),
}));

export function insertBridgeAction(db: Db, row: BridgeActionRow): void {
  statements(db).insert.run(row);
}

export function findBridgeActionByKey(db: Db, workspaceId: string, idempotencyKey: string): BridgeActionRow | undefined {
  return statements(db).byKey.get(workspaceId, idempotencyKey);
}
