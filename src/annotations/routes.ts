// The annotation endpoints (CONTRACT section 10, structured envelope). Every reader of the site's dashboards lists
// them (a range with from and to, both optional); creating takes query:read beyond the dashboards (analysts and up),
// so a viewer reads only; changing and deleting take the owner or the admin scope.
import { getQuery, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { readJsonBody } from '../http/body.ts';
import { pathParam } from '../http/path-params.ts';
import { jsonBody, namedInPath, needsCredential, queryParams, refusals } from '../http/refusals.ts';
import { noContent } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { type QueryValues, single } from '../reading/common-params.ts';
import { reportErrors } from '../reading/common-param-errors.ts';
import { ownerIdOf } from '../segments/owner.ts';
import { parseDateText } from '../vocabulary/periods.ts';
import { CreateAnnotationBody, UpdateAnnotationBody } from './annotation-body.ts';
import { AnnotationAnswer, AnnotationListAnswer } from './answers.ts';
import { createAnnotation } from './create-annotation.ts';
import { deleteAnnotation } from './delete-annotation.ts';
import { annotationsInRange } from './range-annotations.ts';
import { updateAnnotation } from './update-annotation.ts';

const jsonLimit = { limitBytes: 16 * 1024, accept: ['application/json'] };

function dayParam(query: QueryValues, name: string, fallback: string): string {
  const text = single(query, name);
  if (text === undefined) return fallback;
  if (parseDateText(text) === undefined) throw reportErrors.invalidParam(name, 'must be a date as YYYY-MM-DD');
  return text;
}

export function mountAnnotations(app: H3, context: AppContext): void {
  const reader = (event: H3Event) => resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'query:read', dashboard: true });
  const editor = (event: H3Event) => resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'query:read' });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/annotations',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, queryParams),
    summary: 'The site\'s annotations and the caller\'s personal ones, by date',
    query: [
      { name: 'from', description: 'First day, YYYY-MM-DD (inclusive); default: the earliest', schema: { type: 'string', format: 'date' } },
      { name: 'to', description: 'Last day, YYYY-MM-DD (inclusive); default: the latest', schema: { type: 'string', format: 'date' } },
    ],
    answer: AnnotationListAnswer,
    handler: (event) => {
      const { caller, site } = reader(event);
      const query = getQuery(event) as QueryValues;
      return { annotations: annotationsInRange(context.db, site.id, ownerIdOf(caller), dayParam(query, 'from', '0000-01-01'), dayParam(query, 'to', '9999-12-31')) };
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/annotations',
    versionedOnly: true,
    status: 201,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Note a day (1-280 characters of plain text); summary-v2 lists those of its range in meta.annotations',
    body: CreateAnnotationBody,
    answer: AnnotationAnswer,
    handler: async (event) => {
      const { caller, site } = editor(event);
      return createAnnotation(context, caller, site, parseBody(CreateAnnotationBody, await readJsonBody(event, jsonLimit)));
    },
  });
  addRoute(app, {
    method: 'PATCH',
    path: '/sites/:siteId/annotations/:id',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Change an annotation (its owner, or an admin for a site annotation)',
    body: UpdateAnnotationBody,
    answer: AnnotationAnswer,
    handler: async (event) => {
      const { caller, site } = editor(event);
      return updateAnnotation(context, caller, site, pathParam(event, 'id'), parseBody(UpdateAnnotationBody, await readJsonBody(event, jsonLimit)));
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/sites/:siteId/annotations/:id',
    versionedOnly: true,
    status: 204,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Delete an annotation (its owner, or an admin for a site annotation)',
    handler: (event) => {
      const { caller, site } = editor(event);
      deleteAnnotation(context, caller, site, pathParam(event, 'id'));
      return noContent();
    },
  });
}
