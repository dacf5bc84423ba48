// Whether a user_id was seen on any of some sites (the bridge's test of a lead: the sites of its workspace, which
// tenants/ lists). The projector's bindings answer for what it has passed; the event log's tail (past its position)
// for what was acknowledged since, as in user-anon-ids.ts. INDEXED BY: the tail is short, the site's events are not.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  seen: db.prepare<{ site_ids: string; user_id: string }, { seen: number }>(
    `SELECT EXISTS (
       SELECT 1 FROM identities WHERE site_id IN (SELECT value FROM json_each(:site_ids)) AND user_id = :user_id
     ) OR EXISTS (
       SELECT 1 FROM events INDEXED BY events_by_site
       WHERE site_id IN (SELECT value FROM json_each(:site_ids)) AND seq > (SELECT position FROM projector_state WHERE id = 1) AND user_id = :user_id
     ) AS seen`,
  ),
}));

/** @example isUserOnSites(db, listSiteIds(db, workspace.id), 'user-42') // true once an event of one of them named it */
export function isUserOnSites(db: Db, siteIds: readonly string[], userId: string): boolean {
  return statements(db).seen.get({ site_ids: JSON.stringify(siteIds), user_id: userId })!.seen === 1;
}
