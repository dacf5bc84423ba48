// PATCH /v1/sites/:siteId/annotations/:id and DELETE: by its owner, or an admin for a site annotation.
import type { Caller } from '../access/caller.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { changeableAnnotation, toAnnotationAnswer } from './annotation-access.ts';
import type { UpdateAnnotationInput } from './annotation-body.ts';
import type { AnnotationAnswer } from './answers.ts';
import { updateAnnotationRow } from './queries/annotation-rows.ts';

export function updateAnnotation(context: AppContext, caller: Caller, site: SiteRow, id: string, input: UpdateAnnotationInput): AnnotationAnswer {
  return inWriteTransaction(context.db, () => {
    const row = changeableAnnotation(context.db, site, caller, id);
    const updated = { ...row, date: input.date ?? row.date, text: input.text ?? row.text, visibility: input.visibility ?? row.visibility };
    updateAnnotationRow(context.db, updated);
    return toAnnotationAnswer(updated);
  });
}
