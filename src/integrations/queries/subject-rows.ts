// What the bridge keeps about one person of a workspace: the lead signals naming the user, and the outbox rows (with
// their attempts) whose payload names the user or one of the anon_ids. A GDPR deletion removes them.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface SubjectParams {
  workspace_id: string;
  user_id: string | null;
  /** JSON array of the subject's anon_ids. */
  anon_ids: string;
}

const namesSubject = `o.endpoint_id IN (SELECT id FROM webhook_endpoints WHERE workspace_id = :workspace_id) AND (
  json_extract(o.body, '$.data.user_id') = :user_id OR json_extract(o.body, '$.data.lead_id') = :user_id
  OR json_extract(o.body, '$.data.anon_id') IN (SELECT value FROM json_each(:anon_ids)))`;

const statements = preparedOnce((db) => ({
  actions: db.prepare<SubjectParams>('DELETE FROM bridge_actions WHERE workspace_id = :workspace_id AND lead_id = :user_id'),
  attempts: db.prepare<SubjectParams>(`DELETE FROM webhook_attempts WHERE outbox_id IN (SELECT o.id FROM webhook_outbox o WHERE ${namesSubject})`),
  outbox: db.prepare<SubjectParams>(`DELETE FROM webhook_outbox AS o WHERE ${namesSubject}`),
}));

/** Deletes them; answers how many bridge actions and outbox rows went. Run it inside the deletion's transaction. */
export function deleteSubjectRows(db: Db, params: SubjectParams): { actions: number; deliveries: number } {
  const actions = statements(db).actions.run(params).changes;
  statements(db).attempts.run(params);
  return { actions, deliveries: statements(db).outbox.run(params).changes };
}
