// DELETE /v1/sites/:siteId/annotations/:id: by its owner, or an admin for a site annotation.
import type { Caller } from '../access/caller.ts';
import type { AppContext } from '../context.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { changeableAnnotation } from './annotation-access.ts';
import { deleteAnnotationRow } from './queries/annotation-rows.ts';

export function deleteAnnotation(context: AppContext, caller: Caller, site: SiteRow, id: string): void {
  changeableAnnotation(context.db, site, caller, id);
  deleteAnnotationRow(context.db, site.id, id);
}
