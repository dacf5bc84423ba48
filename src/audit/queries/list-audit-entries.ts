// One page of a workspace's audit log, newest first, strictly before a timestamp.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface ListAuditEntriesParams {
  workspaceId: string;
  /** Only rows with ts strictly before this; null for the newest rows, whatever their timestamp. */
  before: string | null;
  limit: number;
}

export interface AuditEntryRow {
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
  page: db.prepare<ListAuditEntriesParams, AuditEntryRow>(
    `SELECT id, workspace_id, actor_kind, actor_id, action, target, metadata, ts
       FROM audit_log
      WHERE workspace_id = :workspaceId AND (:before IS NULL OR ts < :before)
      ORDER BY ts DESC
      LIMIT :limit`,
  ),
}));

export function listAuditEntries(db: Db, params: ListAuditEntriesParams): AuditEntryRow[] {
  return statements(db).page.all(params);
}
