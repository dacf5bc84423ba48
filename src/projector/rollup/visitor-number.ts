// The dense number of a visitor, allocated on first sight: an anon_id already seen on another site of the
// workspace keeps its number, so workspace-wide reports count it once.
import { findSite } from '../../tenants/queries/find-site.ts';
import { listSiteIds } from '../../tenants/queries/list-sites.ts';
import type { Db } from '../../db/open.ts';
import {
  allocateVisitorNumber,
  findVisitorNumber,
  insertVisitorNumber,
} from '../queries/visitor-number-rows.ts';

/** Undefined when the site no longer exists (its events are unreachable by any report). */
export function visitorNumberOf(db: Db, siteId: string, anonId: string): number | undefined {
  const known = findVisitorNumber(db, siteId, anonId);
  if (known !== undefined) return known;
  const site = findSite(db, siteId);
  if (!site) return undefined;
  const vid = numberOnOtherSite(db, site.workspace_id, siteId, anonId) ?? allocateVisitorNumber(db, site.workspace_id);
  insertVisitorNumber(db, siteId, anonId, vid);
  return vid;
}

/** The number the anon_id already has on another site of the workspace (a workspace has a handful of sites). */
function numberOnOtherSite(db: Db, workspaceId: string, siteId: string, anonId: string): number | undefined {
  for (const other of listSiteIds(db, workspaceId)) {
    if (other === siteId) continue;
    const vid = findVisitorNumber(db, other, anonId);
    if (vid !== undefined) return vid;
  }
  return undefined;
}
