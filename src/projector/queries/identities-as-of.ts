// The identity bindings an analysis counts people through (src/analysis/persons.ts): every (anon_id, user_id) the
// projector bound on a site, and whether an event up to a given seq made a binding (through the visitor index, so
// a binding first made past an analysis's watermark can be told apart from an older one).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface SiteBindingRow {
  anon_id: string;
  user_id: string;
}

export interface BindingUpToParams {
  site_id: string;
  anon_id: string;
  user_id: string;
  max_seq: number;
}

const statements = preparedOnce((db) => ({
  ofSite: db.prepare<[string], SiteBindingRow>('SELECT anon_id, user_id FROM identities WHERE site_id = ?'),
  boundUpTo: db.prepare<BindingUpToParams, number>(
    `SELECT 1 FROM visitor_events ve JOIN events e ON e.seq = ve.seq
      WHERE ve.vid = (SELECT vid FROM report_visitors WHERE site_id = :site_id AND anon_id = :anon_id) AND ve.seq <= :max_seq
        AND e.site_id = :site_id AND e.anon_id = :anon_id AND e.user_id = :user_id
      LIMIT 1`,
  ).pluck(),
}));

/** Every binding the projector holds for the site (as of its position). @example listSiteBindings(db, 'blog') */
export function listSiteBindings(db: Db, siteId: string): SiteBindingRow[] {
  return statements(db).ofSite.all(siteId);
}

/**
 * True when an event with seq <= max_seq bound anon_id to user_id on the site (the projector must have passed it).
 * @example isBoundUpTo(db, { site_id: 'blog', anon_id: 'a1', user_id: 'alice', max_seq: 120 })
 */
export function isBoundUpTo(db: Db, params: BindingUpToParams): boolean {
  return statements(db).boundUpTo.get(params) !== undefined;
}
