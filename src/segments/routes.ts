// The segment endpoints (CONTRACT section 10, structured envelope). Every reader of the site's dashboards lists the
// site's segments and their own; creating takes query:read beyond the dashboards (analysts and up, keys with
// query:read), so a viewer reads only; changing and deleting take the owner or the admin scope.
import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { readJsonBody } from '../http/body.ts';
import { pathParam } from '../http/path-params.ts';
import { jsonBody, namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { noContent } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { SegmentAnswer, SegmentListAnswer } from './answers.ts';
import { createSegment } from './create-segment.ts';
import { deleteSegment } from './delete-segment.ts';
import { ownerIdOf } from './owner.ts';
import { listVisibleSegments } from './queries/segment-rows.ts';
import { toSegmentAnswer } from './segment-access.ts';
import { CreateSegmentBody, UpdateSegmentBody } from './segment-body.ts';
import { updateSegment } from './update-segment.ts';

const jsonLimit = { limitBytes: 64 * 1024, accept: ['application/json'] };

export function mountSegments(app: H3, context: AppContext): void {
  const reader = (event: H3Event) => resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'query:read', dashboard: true });
  const editor = (event: H3Event) => resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'query:read' });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/segments',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'The site\'s segments and the caller\'s personal ones, oldest first',
    answer: SegmentListAnswer,
    handler: (event) => {
      const { caller, site } = reader(event);
      return { segments: listVisibleSegments(context.db, site.id, ownerIdOf(caller)).map(toSegmentAnswer) };
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/segments',
    versionedOnly: true,
    status: 201,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Save filters as a segment (personal unless visibility is site); every V2 report takes segment=<id>',
    body: CreateSegmentBody,
    answer: SegmentAnswer,
    handler: async (event) => {
      const { caller, site } = editor(event);
      return createSegment(context, caller, site, parseBody(CreateSegmentBody, await readJsonBody(event, jsonLimit)));
    },
  });
  addRoute(app, {
    method: 'PATCH',
    path: '/sites/:siteId/segments/:id',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Change a segment (its owner, or an admin for a site segment)',
    body: UpdateSegmentBody,
    answer: SegmentAnswer,
    handler: async (event) => {
      const { caller, site } = editor(event);
      return updateSegment(context, caller, site, pathParam(event, 'id'), parseBody(UpdateSegmentBody, await readJsonBody(event, jsonLimit)));
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/sites/:siteId/segments/:id',
    versionedOnly: true,
    status: 204,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Delete a segment (its owner, or an admin for a site segment)',
    handler: (event) => {
      const { caller, site } = editor(event);
      deleteSegment(context, caller, site, pathParam(event, 'id'));
      return noContent();
    },
  });
}
