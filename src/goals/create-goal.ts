// POST /v1/sites/:siteId/goals: a checked goal, within the site's limit of goals.
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { GoalAnswer } from './answers.ts';
import { checkGoalDefinition, type CreateGoalInput, maxGoalsPerSite } from './goal-body.ts';
import { toGoalAnswer } from './goal-answer.ts';
import { countGoals, type GoalRow, insertGoal } from './queries/goal-rows.ts';

export function createGoal(context: AppContext, site: SiteRow, input: CreateGoalInput): GoalAnswer {
  const definition = checkGoalDefinition({ name: input.name, kind: input.kind, path: input.path ?? null, event_type: input.event_type ?? null, props: input.props ?? null });
  return inWriteTransaction(context.db, () => {
    if (countGoals(context.db, site.id) >= maxGoalsPerSite) {
      throw ApiError.invalidPayload([{ path: '', message: `a site has at most ${maxGoalsPerSite} goals` }], `This site already has ${maxGoalsPerSite} goals`);
    }
    const row: GoalRow = {
      id: context.random.uuid(),
      site_id: site.id,
      ...definition,
      props: definition.props === null ? null : JSON.stringify(definition.props),
      created_at: toIso(context.clock.now()),
    };
    insertGoal(context.db, row);
    return toGoalAnswer(row);
  });
}
