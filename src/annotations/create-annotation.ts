// POST /v1/sites/:siteId/annotations: the caller's note on a day (visible to the site's readers unless personal).
import type { Caller } from '../access/caller.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { ownerIdOf } from '../segments/owner.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { toAnnotationAnswer } from './annotation-access.ts';
import { type CreateAnnotationInput, maxAnnotationsPerSite } from './annotation-body.ts';
import type { AnnotationAnswer } from './answers.ts';
import { type AnnotationRow, countAnnotations, insertAnnotation } from './queries/annotation-rows.ts';

export function createAnnotation(context: AppContext, caller: Caller, site: SiteRow, input: CreateAnnotationInput): AnnotationAnswer {
  return inWriteTransaction(context.db, () => {
    if (countAnnotations(context.db, site.id) >= maxAnnotationsPerSite) {
      throw ApiError.invalidPayload([{ path: '', message: `a site has at most ${maxAnnotationsPerSite} annotations` }], `This site already has ${maxAnnotationsPerSite} annotations`);
    }
    const row: AnnotationRow = {
      id: context.random.uuid(),
      site_id: site.id,
      date: input.date,
      text: input.text,
      visibility: input.visibility ?? 'site',
      owner_id: ownerIdOf(caller),
      created_at: toIso(context.clock.now()),
    };
    insertAnnotation(context.db, row);
    return toAnnotationAnswer(row);
  });
}
