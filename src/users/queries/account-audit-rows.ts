// The account_audit_log table (schema version 20): append-only, like audit_log.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface AccountAuditRow {
  id: string;
  actor_kind: 'admin' | 'user' | 'system' | 'anonymous';
  actor_id: string | null;
  action: string;
  user_id: string | null;
  metadata: string;
  ts: string;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<AccountAuditRow>(
    'INSERT INTO account_audit_log (id, actor_kind, actor_id, action, user_id, metadata, ts) VALUES (:id, :actor_kind, :actor_id, :action, :user_id, :metadata, :ts)',
  ),
}));

export const insertAccountAuditRow = (db: Db, row: AccountAuditRow): void => void statements(db).insert.run(row);
