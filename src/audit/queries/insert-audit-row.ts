// Appends an audit row; the newest timestamp of a workspace keeps timestamps strictly increasing.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface AuditRowParams {
  id: string;
  workspace_id: string;
  actor_kind: 'admin' | 'apiKey' | 'user' | 'system';
  actor_id: string | null;
  action: string;
  target: string | null;
  metadata: string;
  ts: string;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<AuditRowParams>(
    `INSERT INTO audit_log (id, workspace_id, actor_kind, actor_id, action, target, metadata, ts)
     VALUES (:id, :workspace_id, :actor_kind, :actor_id, :action, :target, :metadata, :ts)`,
  ),
  newest: db.prepare<[string], { ts: string }>('SELECT max(ts) AS ts FROM audit_log WHERE workspace_id = ?'),
}));

export function insertAuditRow(db: Db, row: AuditRowParams): void {
  statements(db).insert.run(row);
}

export function newestAuditTs(db: Db, workspaceId: string): string | undefined {
  return statements(db).newest.get(workspaceId)?.ts ?? undefined;
}
