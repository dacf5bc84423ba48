// The identity bindings an analysis counts people through (src/analysis/persons.ts): the (anon_id, user_id) pairs the
// projector bound on a site for the anon_ids the analysis read, and whether an event up to a given seq made a binding (through the visitor index, so
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

/** One statement for all the anon_ids an analysis read, each an index lookup. Exported for the query-plan test. */
export const bindingsOfAnonsSql =
  'SELECT anon_id, user_id FROM identities WHERE site_id = :site_id AND anon_id IN (SELECT value FROM json_each(:anon_ids))';

const statements = preparedOnce((db) => ({
  ofAnons: db.prepare<{ site_id: string; anon_ids: string }, SiteBindingRow>(bindingsOfAnonsSql),
  boundUpTo: db.prepare<BindingUpToParams, number>(
    `SELECT 1 FROM visitor_events ve JOIN events e ON e.seq = ve.seq
      WHERE ve.vid = (SELECT vid FROM report_visitors WHERE site_id = :site_id AND anon_id = :anon_id) AND ve.seq <= :max_seq
        AND e.site_id = :site_id AND e.anon_id = :anon_id AND e.user_id = :user_id
      LIMIT 1`,
  ).pluck(),
}));

/**
 * The bindings the projector holds (as of its position) for these anon_ids of the site.
 * @example listBindingsOfAnons(db, 'blog', ['a1', 'a2']) // [{ anon_id: 'a1', user_id: 'alice' }]
 */
export function listBindingsOfAnons(db: Db, siteId: string, anonIds: readonly string[]): SiteBindingRow[] {
  if (anonIds.length === 0) return [];
  return statements(db).ofAnons.all({ site_id: siteId, anon_ids: JSON.stringify(anonIds) });
}

/**
 * True when an event with seq <= max_seq bound anon_id to user_id on the site (the projector must have passed it).
 * @example isBoundUpTo(db, { site_id: 'blog', anon_id: 'a1', user_id: 'alice', max_seq: 120 })
 */
export function isBoundUpTo(db: Db, params: BindingUpToParams): boolean {
  return statements(db).boundUpTo.get(params) !== undefined;
}
