// A site's cookieless setting (schema version 11).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  read: db.prepare<[string], { cookieless: 0 | 1 }>('SELECT cookieless FROM sites WHERE id = ?'),
  write: db.prepare<{ id: string; cookieless: 0 | 1 }>('UPDATE sites SET cookieless = :cookieless WHERE id = :id'),
}));

/** undefined for a site that does not exist. */
export function readCookieless(db: Db, siteId: string): boolean | undefined {
  const row = statements(db).read.get(siteId);
  return row ? row.cookieless === 1 : undefined;
}

export function writeCookieless(db: Db, siteId: string, cookieless: boolean): void {
  statements(db).write.run({ id: siteId, cookieless: cookieless ? 1 : 0 });
}
