// One annotation as its caller may reach it: someone else's personal one is a missing one (404); a visible one the
// caller may not change is 403 forbidden_scope. The answer leaves created_at out (CONTRACT section 10's shape).
import type { Caller } from '../access/caller.ts';
import type { Db } from '../db/open.ts';
import { ApiError } from '../http/errors.ts';
import { canChange, canSee, ownerIdOf } from '../segments/owner.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { AnnotationAnswer } from './answers.ts';
import { type AnnotationRow, findAnnotationRow } from './queries/annotation-rows.ts';

export function changeableAnnotation(db: Db, site: SiteRow, caller: Caller, id: string): AnnotationRow {
  const row = findAnnotationRow(db, site.id, id);
  if (!row || !canSee(row, ownerIdOf(caller))) throw ApiError.notFound();
  if (!canChange(row, caller, site.workspace_id)) throw new ApiError(403, 'forbidden_scope', 'Only its owner or an admin may change a site annotation');
  return row;
}

export function toAnnotationAnswer(row: AnnotationRow): AnnotationAnswer {
  return { id: row.id, site_id: row.site_id, date: row.date, text: row.text, visibility: row.visibility, owner_id: row.owner_id };
}
