// Domains that keep rows per site register how to remove them, so deleting a site removes its data in the same
// transaction without the admin domain reaching into their tables.
import type { Db } from '../db/open.ts';

type SiteDataRemover = (db: Db, siteId: string) => void;

const removers: { name: string; remove: SiteDataRemover }[] = [];

/**
 * @example registerSiteDataRemover('events', (db, siteId) => deleteEventsOfSite(db, siteId));
 */
export function registerSiteDataRemover(name: string, remove: SiteDataRemover): void {
  if (!removers.some((remover) => remover.name === name)) removers.push({ name, remove });
}

/** Runs every registered remover; call inside the site deletion's transaction. */
export function removeSiteData(db: Db, siteId: string): void {
  for (const remover of removers) remover.remove(db, siteId);
}
