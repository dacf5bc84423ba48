// One spend row of a workspace by id (a row of another workspace is not found).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { SpendRow } from './spend-writes.ts';

const statements = preparedOnce((db) => ({
  byId: db.prepare<{ workspace_id: string; id: string }, SpendRow>('SELECT * FROM spend WHERE workspace_id = :workspace_id AND id = :id'),
}));

export function findSpendRow(db: Db, workspaceId: string, id: string): SpendRow | undefined {
  return statements(db).byId.get({ workspace_id: workspaceId, id });
}
