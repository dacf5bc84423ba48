// The user an anon_id is bound to on a site (the most recently seen binding), for merging a person's devices.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

const statements = preparedOnce((db) => ({
  user: db
    .prepare<{ site_id: string; anon_id: string }, string>(
      'SELECT user_id FROM identities WHERE site_id = :site_id AND anon_id = :anon_id ORDER BY last_seen DESC, user_id LIMIT 1',
    )
    .pluck(),
}));

/** undefined when the anon_id was never bound to a user on the site. */
export function findUserOfAnon(db: Db, siteId: string, anonId: string): string | undefined {
  return statements(db).user.get({ site_id: siteId, anon_id: anonId }) as string | undefined;
}
