// Domains that keep rows per site register how to remove them, so deleting a site removes its data in the same
// transaction without the admin domain reaching into their tables.
import type { Db } from '../db/open.ts';

type SiteDataRemover = (db: Db, siteId: string) => void;

/** 'derived' removers run first: they may read the site's stored rows (its events) to find their own. */
export type SiteDataPhase = 'derived' | 'stored';

const removers: { name: string; remove: SiteDataRemover; phase: SiteDataPhase }[] = [];

/**
 * @example registerSiteDataRemover('events', (db, siteId) => deleteEventsOfSite(db, siteId));
 */
export function registerSiteDataRemover(name: string, remove: SiteDataRemover, phase: SiteDataPhase = 'stored'): void {
  if (!removers.some((remover) => remover.name === name)) removers.push({ name, remove, phase });
}

/** Runs every registered remover, derived data first; call inside the site deletion's transaction. */
export function removeSiteData(db: Db, siteId: string): void {
  for (const phase of ['derived', 'stored'] as const) for (const remover of removers) if (remover.phase === phase) remover.remove(db, siteId);
}
