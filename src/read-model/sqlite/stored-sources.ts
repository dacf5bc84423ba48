// The stored sources of a scope's sites, for a source filter naming a group (source-groups.ts): the projector's
// dictionary of the source dimension's values (cached, read incrementally), which holds every source of every visit
// it has derived, so a group's filter selects exactly its members as of the projector's position.
import type { Db } from '../../db/open.ts';
import { listValues } from '../../projector/queries/value-rows.ts';
import { findSite } from '../../tenants/queries/find-site.ts';
import { Dim } from '../../vocabulary/dimensions.ts';

/** @example storedSources(db, ['blog']) // Set { 'direct', 'google.com', 't.co', … } */
export function storedSources(db: Db, siteIds: readonly string[]): Set<string> {
  const sources = new Set<string>();
  for (const siteId of siteIds) {
    const site = findSite(db, siteId);
    if (!site) continue;
    for (const value of listValues(db, siteId, site.created_at, Dim.source).values()) sources.add(value);
  }
  return sources;
}
