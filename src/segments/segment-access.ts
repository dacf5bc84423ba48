// One segment as its caller may reach it: a personal segment of someone else is exactly a missing one (404); a
// visible one the caller may not change is 403 forbidden_scope.
import type { Caller } from '../access/caller.ts';
import type { Db } from '../db/open.ts';
import { ApiError } from '../http/errors.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { SegmentAnswer } from './answers.ts';
import { canChange, canSee, ownerIdOf } from './owner.ts';
import { findSegmentRow, type SegmentRow } from './queries/segment-rows.ts';

export function visibleSegment(db: Db, site: SiteRow, ownerId: string | null, id: string): SegmentRow {
  const row = findSegmentRow(db, site.id, id);
  if (!row || !canSee(row, ownerId)) throw ApiError.notFound();
  return row;
}

export function changeableSegment(db: Db, site: SiteRow, caller: Caller, id: string): SegmentRow {
  const row = visibleSegment(db, site, ownerIdOf(caller), id);
  if (!canChange(row, caller, site.workspace_id)) throw new ApiError(403, 'forbidden_scope', 'Only its owner or an admin may change a site segment');
  return row;
}

export function toSegmentAnswer(row: SegmentRow): SegmentAnswer {
  return { ...row, filters: JSON.parse(row.filters) as Record<string, string> };
}
