// Deleting a site removes every row any domain keeps for it, in the deletion's transaction, without the admin domain
// reaching into their tables: each owner gives a remover, and the app lists them all in one place (src/app.ts,
// siteDataRemovers), which the HTTP route and the CLI both use through the context.
import type { Db } from '../db/open.ts';

/** 'derived' removers run first: they may read the site's stored rows (its events) to find their own. */
export type SiteDataPhase = 'derived' | 'stored';

export interface SiteDataRemover {
  name: string;
  phase: SiteDataPhase;
  /**
   * The tables of schema.sql it empties of the site's rows (none for an in-memory cache): a test compares their
   * union with every table that has a site_id column (test/admin/site-data-removers.test.ts).
   */
  tables: readonly string[];
  remove(db: Db, siteId: string): void;
}

/**
 * Runs every remover, derived data first; call inside the site deletion's transaction.
 * @example removeSiteData(context.db, context.siteDataRemovers, site.id);
 */
export function removeSiteData(db: Db, removers: readonly SiteDataRemover[], siteId: string): void {
  for (const phase of ['derived', 'stored'] as const) for (const remover of removers) if (remover.phase === phase) remover.remove(db, siteId);
}
