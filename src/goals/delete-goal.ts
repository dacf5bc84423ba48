// DELETE /v1/sites/:siteId/goals/:id.
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { deleteGoalRow } from './queries/goal-rows.ts';

export function deleteGoal(context: AppContext, site: SiteRow, id: string): void {
  if (!deleteGoalRow(context.db, site.id, id)) throw ApiError.notFound();
}
