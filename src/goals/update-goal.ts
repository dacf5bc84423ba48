// PATCH /v1/sites/:siteId/goals/:id: the fields given replace the stored ones (null clears an optional one); the
// merged goal is checked as a whole.
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { GoalAnswer } from './answers.ts';
import { checkGoalDefinition, type UpdateGoalInput } from './goal-body.ts';
import { toGoalAnswer } from './goal-answer.ts';
import { findGoalRow, updateGoalRow } from './queries/goal-rows.ts';

export function updateGoal(context: AppContext, site: SiteRow, id: string, input: UpdateGoalInput): GoalAnswer {
  return inWriteTransaction(context.db, () => {
    const row = findGoalRow(context.db, site.id, id);
    if (!row) throw ApiError.notFound();
    const pick = <T>(given: T | undefined, stored: T) => (given === undefined ? stored : given);
    const definition = checkGoalDefinition({
      name: input.name ?? row.name,
      kind: input.kind ?? row.kind,
      path: pick(input.path, row.path),
      event_type: pick(input.event_type, row.event_type),
      props: pick(input.props, row.props === null ? null : (JSON.parse(row.props) as Record<string, string>)),
    });
    const updated = { ...row, ...definition, props: definition.props === null ? null : JSON.stringify(definition.props) };
    updateGoalRow(context.db, updated);
    return toGoalAnswer(updated);
  });
}
