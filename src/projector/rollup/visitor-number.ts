// The dense number of a visitor, allocated on first sight: an anon_id already seen on another site of the
// workspace keeps its number, so workspace-wide reports count it once.
import { findSite } from '../../admin/queries/find-site.ts';
import type { Db } from '../../db/open.ts';
import {
  allocateVisitorNumber,
  findVisitorNumber,
  findWorkspaceVisitorNumber,
  insertVisitorNumber,
} from '../queries/visitor-number-rows.ts';

/** Undefined when the site no longer exists (its events are unreachable by any report). */
export function visitorNumberOf(db: Db, siteId: string, anonId: string): number | undefined {
  const known = findVisitorNumber(db, siteId, anonId);
  if (known !== undefined) return known;
  const site = findSite(db, siteId);
  if (!site) return undefined;
  const vid = findWorkspaceVisitorNumber(db, site.workspace_id, anonId) ?? allocateVisitorNumber(db, site.workspace_id);
  insertVisitorNumber(db, siteId, anonId, site.workspace_id, vid);
  return vid;
}
