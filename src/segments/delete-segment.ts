// DELETE /v1/sites/:siteId/segments/:id, by its owner or an admin.
import type { Caller } from '../access/caller.ts';
import type { AppContext } from '../context.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { deleteSegmentRow } from './queries/segment-rows.ts';
import { changeableSegment } from './segment-access.ts';

export function deleteSegment(context: AppContext, caller: Caller, site: SiteRow, id: string): void {
  changeableSegment(context.db, site, caller, id);
  deleteSegmentRow(context.db, site.id, id);
}
