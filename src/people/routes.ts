// The people endpoints: the per-user timeline (cross-device merge through identities). Thin handlers:
// access → parameters → timeline.
import { getQuery, getRouterParam, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { queryParams, refusals } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import { parseQuery } from '../http/validate.ts';
import { reportAccessRefusals } from '../reading/common-param-errors.ts';
import { resolveReportSite } from '../reading/scope.ts';
import { TimelineAnswer, TimelineQuery, timelineQueryDocs, userTimeline } from './timeline.ts';

/**
 * The user id of the path, fully decoded: h3's own decoding keeps %2F encoded (a path-safe choice), but a user id
 * is any 1-128 character string, `/` included. Text that is not valid percent-encoding is taken literally.
 */
function userIdOf(event: H3Event): string {
  const raw = getRouterParam(event, 'userId') ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * @example mountPeople(app, context, readModel); // GET /sites/:siteId/users/:userId/timeline and its /v1 form
 */
export function mountPeople(app: H3, context: AppContext, readModel: ReadModel): void {
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/users/:userId/timeline',
    refusals: refusals(reportAccessRefusals, queryParams, { 404: ['user_not_found'] }),
    summary: "A user's events on the site across every device (anon_id) bound to them, newest first",
    query: timelineQueryDocs,
    answer: TimelineAnswer,
    handler: (event) => {
      // Access first (401, 404 for a missing or foreign site, 403 without query:read), then the parameters.
      const site = resolveReportSite(event, context);
      const query = parseQuery(TimelineQuery, getQuery(event));
      return userTimeline(readModel, site, userIdOf(event), query);
    },
  });
}
