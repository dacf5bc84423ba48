// The goal endpoints (CONTRACT section 10, structured envelope): any reader of the site's dashboards lists them;
// creating, changing and deleting take query:read beyond the dashboards (analysts, admins, owners, keys with
// query:read or admin), so a viewer is refused with 403. goals-v2, the report, lives with the reports.
import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { readJsonBody } from '../http/body.ts';
import { pathParam } from '../http/path-params.ts';
import { jsonBody, namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { noContent } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { GoalAnswer, GoalListAnswer } from './answers.ts';
import { createGoal } from './create-goal.ts';
import { deleteGoal } from './delete-goal.ts';
import { CreateGoalBody, UpdateGoalBody } from './goal-body.ts';
import { toGoalAnswer } from './goal-answer.ts';
import { listGoalRows } from './queries/goal-rows.ts';
import { updateGoal } from './update-goal.ts';

const jsonLimit = { limitBytes: 16 * 1024, accept: ['application/json'] };

export function mountGoals(app: H3, context: AppContext): void {
  const reader = (event: H3Event) => resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'query:read', dashboard: true }).site;
  const editor = (event: H3Event) => resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'query:read' }).site;
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/goals',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'The site\'s goals, oldest first',
    answer: GoalListAnswer,
    handler: (event) => ({ goals: listGoalRows(context.db, reader(event).id).map(toGoalAnswer) }),
  });
  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/goals',
    versionedOnly: true,
    status: 201,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Create a goal: a pageview of a path (exact or ending in *) or an event type, with optional exact props',
    body: CreateGoalBody,
    answer: GoalAnswer,
    handler: async (event) => {
      const site = editor(event);
      return createGoal(context, site, parseBody(CreateGoalBody, await readJsonBody(event, jsonLimit)));
    },
  });
  addRoute(app, {
    method: 'PATCH',
    path: '/sites/:siteId/goals/:id',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, jsonBody),
    summary: 'Change a goal (null clears path, event_type or props)',
    body: UpdateGoalBody,
    answer: GoalAnswer,
    handler: async (event) => {
      const site = editor(event);
      return updateGoal(context, site, pathParam(event, 'id'), parseBody(UpdateGoalBody, await readJsonBody(event, jsonLimit)));
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/sites/:siteId/goals/:id',
    versionedOnly: true,
    status: 204,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Delete a goal',
    handler: (event) => {
      deleteGoal(context, editor(event), pathParam(event, 'id'));
      return noContent();
    },
  });
}
