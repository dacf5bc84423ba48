// PATCH /v1/sites/:siteId/segments/:id: name, filters (replaced whole) or visibility, by its owner or an admin.
import type { Caller } from '../access/caller.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { SegmentAnswer } from './answers.ts';
import { updateSegmentRow } from './queries/segment-rows.ts';
import { changeableSegment, toSegmentAnswer } from './segment-access.ts';
import { checkSegmentFilters, type UpdateSegmentInput } from './segment-body.ts';

export function updateSegment(context: AppContext, caller: Caller, site: SiteRow, id: string, input: UpdateSegmentInput): SegmentAnswer {
  return inWriteTransaction(context.db, () => {
    const row = changeableSegment(context.db, site, caller, id);
    const updated = {
      ...row,
      name: input.name ?? row.name,
      filters: input.filters ? JSON.stringify(checkSegmentFilters(context.db, site.id, input.filters)) : row.filters,
      visibility: input.visibility ?? row.visibility,
    };
    updateSegmentRow(context.db, updated);
    return toSegmentAnswer(updated);
  });
}
