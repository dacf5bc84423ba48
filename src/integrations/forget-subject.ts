// For a GDPR deletion (CONTRACT section 8: everything derived from the subject goes): the bridge's lead signals of
// the user and every webhook delivery whose payload names the user or one of its anon_ids, pending ones included
// (they are not sent after the deletion).
import type { Db } from '../db/open.ts';
import { deleteSubjectRows } from './queries/subject-rows.ts';

export interface Subject {
  workspaceId: string;
  userId: string | null;
  anonIds: readonly string[];
}

/**
 * Must run inside the deletion's write transaction.
 * @example inWriteTransaction(db, () => forgetSubjectWebhooks(db, { workspaceId, userId: 'u1', anonIds: ['a1'] }));
 */
export function forgetSubjectWebhooks(db: Db, subject: Subject): { actions: number; deliveries: number } {
  return deleteSubjectRows(db, { workspace_id: subject.workspaceId, user_id: subject.userId, anon_ids: JSON.stringify(subject.anonIds) });
}
