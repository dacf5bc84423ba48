// Every anon_id ever bound to a user on a site: the devices a timeline merges. The projector keeps the bindings
// (identities_by_user); the events it has not reached yet are read from the event log's tail, so a timeline sees a
// binding as soon as its event is acknowledged. INDEXED BY: with ANALYZE statistics the planner would walk every
// event of the site instead of the short tail.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface UserAnonIdsParams {
  site_id: string;
  user_id: string;
}

export interface UserAnonIdRow {
  anon_id: string;
}

/** Exported for the query-plan test (test/people/timeline.test.ts). */
export const userAnonIdsSql = `SELECT anon_id FROM identities WHERE site_id = :site_id AND user_id = :user_id
  UNION
  SELECT anon_id FROM events INDEXED BY events_by_site WHERE site_id = :site_id AND seq > (SELECT position FROM projector_state WHERE id = 1) AND user_id = :user_id
  ORDER BY anon_id`;

const statements = preparedOnce((db) => ({
  anonIds: db.prepare<UserAnonIdsParams, UserAnonIdRow>(userAnonIdsSql),
}));

/** The user's anon_ids, empty when no event ever named (site, user_id). */
export function listUserAnonIds(db: Db, params: UserAnonIdsParams): string[] {
  return statements(db).anonIds.all(params).map((row) => row.anon_id);
}
