// Whether a user_id was seen on any site of a workspace: the bridge's test of a lead. The projector's bindings
// answer for what it has passed; the event log's tail (past its position) for what was acknowledged since.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface UserInWorkspaceParams {
  workspace_id: string;
  user_id: string;
}

const statements = preparedOnce((db) => ({
  seen: db.prepare<UserInWorkspaceParams, { seen: number }>(
    `SELECT EXISTS (
       SELECT 1 FROM sites s JOIN identities i ON i.site_id = s.id AND i.user_id = :user_id WHERE s.workspace_id = :workspace_id
     ) OR EXISTS (
       SELECT 1 FROM sites s JOIN events e INDEXED BY events_by_site ON e.site_id = s.id
       WHERE s.workspace_id = :workspace_id AND e.seq > (SELECT position FROM projector_state WHERE id = 1) AND e.user_id = :user_id
     ) AS seen`,
  ),
}));

/** @example isUserInWorkspace(db, { workspace_id, user_id: 'user-42' }) // true once an event named it */
export function isUserInWorkspace(db: Db, params: UserInWorkspaceParams): boolean {
  return statements(db).seen.get(params)!.seen === 1;
}
