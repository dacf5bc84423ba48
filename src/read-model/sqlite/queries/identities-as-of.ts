// The identity bindings an analysis counts people through (src/read-model/sqlite/persons.ts): the (anon_id, user_id) pairs the
// projector bound on a site for the anon_ids the analysis read, and whether an event up to a given seq made a binding (through the visitor index, so
// a binding first made past an analysis's watermark can be told apart from an older one).
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

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

export interface VisitorBindingRow extends SiteBindingRow {
  vid: number;
}

/** The bindings of the site's visitors among `vids`, each found through report_visitors_by_vid. Exported for the plan test. */
export const bindingsOfVisitorsSql = `SELECT rv.vid, i.anon_id, i.user_id
  FROM report_visitors rv INDEXED BY report_visitors_by_vid
  JOIN identities i ON i.site_id = rv.site_id AND i.anon_id = rv.anon_id
 WHERE rv.vid IN (SELECT value FROM json_each(:vids)) AND rv.site_id = :site_id`;

const statements = preparedOnce((db) => ({
  ofVisitors: db.prepare<{ site_id: string; vids: string }, VisitorBindingRow>(bindingsOfVisitorsSql),
  // Every binding of the site with its visitor number: cheaper than the lookups when the site has fewer bindings.
  ofSite: db.prepare<{ site_id: string }, VisitorBindingRow>(
    `SELECT rv.vid, i.anon_id, i.user_id FROM identities i
       JOIN report_visitors rv ON rv.site_id = i.site_id AND rv.anon_id = i.anon_id
      WHERE i.site_id = :site_id`,
  ),
  countUpTo: db.prepare<{ site_id: string; limit: number }, number>(
    'SELECT count(*) FROM (SELECT 1 FROM identities WHERE site_id = :site_id LIMIT :limit)',
  ).pluck(),
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
 * The bindings the projector holds (as of its position) for these visitor numbers of the site, with each one's
 * anon_id: looked up one by one, or all of the site's read at once when it has no more of them than `vids`.
 * @example listBindingsOfVisitors(db, 'blog', [3, 8]) // [{ vid: 3, anon_id: 'a1', user_id: 'alice' }]
 */
export function listBindingsOfVisitors(db: Db, siteId: string, vids: readonly number[]): VisitorBindingRow[] {
  if (vids.length === 0) return [];
  const { ofVisitors, ofSite, countUpTo } = statements(db);
  if (countUpTo.get({ site_id: siteId, limit: vids.length + 1 })! <= vids.length) {
    const wanted = new Set(vids);
    return ofSite.all({ site_id: siteId }).filter((row) => wanted.has(row.vid));
  }
  return ofVisitors.all({ site_id: siteId, vids: JSON.stringify(vids) });
}

/**
 * True when an event with seq <= max_seq bound anon_id to user_id on the site (the projector must have passed it).
 * @example isBoundUpTo(db, { site_id: 'blog', anon_id: 'a1', user_id: 'alice', max_seq: 120 })
 */
export function isBoundUpTo(db: Db, params: BindingUpToParams): boolean {
  return statements(db).boundUpTo.get(params) !== undefined;
}
