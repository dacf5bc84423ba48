// POST /v1/sites/:siteId/segments: the caller's segment (personal unless said otherwise), its filters checked as a
// report would check them.
import type { Caller } from '../access/caller.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { SegmentAnswer } from './answers.ts';
import { ownerIdOf } from './owner.ts';
import { countSegments, insertSegment, type SegmentRow } from './queries/segment-rows.ts';
import { toSegmentAnswer } from './segment-access.ts';
import { checkSegmentFilters, type CreateSegmentInput, maxSegmentsPerSite } from './segment-body.ts';

export function createSegment(context: AppContext, caller: Caller, site: SiteRow, input: CreateSegmentInput): SegmentAnswer {
  const filters = checkSegmentFilters(context.db, site.id, input.filters);
  return inWriteTransaction(context.db, () => {
    if (countSegments(context.db, site.id) >= maxSegmentsPerSite) {
      throw ApiError.invalidPayload([{ path: '', message: `a site has at most ${maxSegmentsPerSite} segments` }], `This site already has ${maxSegmentsPerSite} segments`);
    }
    const row: SegmentRow = {
      id: context.random.uuid(),
      site_id: site.id,
      name: input.name,
      filters: JSON.stringify(filters),
      visibility: input.visibility ?? 'personal',
      owner_id: ownerIdOf(caller),
      created_at: toIso(context.clock.now()),
    };
    insertSegment(context.db, row);
    return toSegmentAnswer(row);
  });
}
