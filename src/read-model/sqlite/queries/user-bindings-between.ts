// The (anon_id, user_id) pairs named by one site's events stored after a seq and up to another: the identity
// bindings the projector may have counted past an analysis's watermark (src/read-model/sqlite/persons.ts takes back those no
// earlier event made). Reads the tail of events_by_site (site_id, then seq).
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface UserBindingRow {
  anon_id: string;
  user_id: string;
}

const statements = preparedOnce((db) => ({
  between: db.prepare<{ site_id: string; after_seq: number; upto_seq: number }, UserBindingRow>(
    `SELECT DISTINCT anon_id, user_id FROM events INDEXED BY events_by_site
      WHERE site_id = :site_id AND seq > :after_seq AND seq <= :upto_seq AND user_id IS NOT NULL`,
  ),
}));

/**
 * Distinct bindings named by the site's events with after_seq < seq <= upto_seq (empty when upto <= after).
 * @example listUserBindingsBetween(db, 'blog', 120, 130) // [{ anon_id: 'a1', user_id: 'alice' }]
 */
export function listUserBindingsBetween(db: Db, siteId: string, afterSeq: number, uptoSeq: number): UserBindingRow[] {
  if (uptoSeq <= afterSeq) return [];
  return statements(db).between.all({ site_id: siteId, after_seq: afterSeq, upto_seq: uptoSeq });
}
