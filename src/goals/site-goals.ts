// A site's goals as the reports use them: every goal with its rule (goals-v2), or one goal named by a report's
// goal=<id> parameter (an id that is not one of the site's goals is refused like any bad parameter).
import type { Db } from '../db/open.ts';
import { ApiError } from '../http/errors.ts';
import type { GoalFilter } from '../vocabulary/goal-rule.ts';
import { toGoalRule } from './goal-body.ts';
import { findGoalRow, type GoalRow, listGoalRows } from './queries/goal-rows.ts';

function toFilter(row: GoalRow): GoalFilter {
  return { id: row.id, rule: toGoalRule({ ...row, props: row.props === null ? null : (JSON.parse(row.props) as Record<string, string>) }) };
}

export function listSiteGoals(db: Db, siteId: string): { name: string; filter: GoalFilter }[] {
  return listGoalRows(db, siteId).map((row) => ({ name: row.name, filter: toFilter(row) }));
}

/** One of the site's goals as a filter, or undefined (a goal of another site is never found). */
export function findGoalFilter(db: Db, siteId: string, id: string): GoalFilter | undefined {
  const row = id.length <= 64 ? findGoalRow(db, siteId, id) : undefined;
  return row ? toFilter(row) : undefined;
}

export function goalFilterOf(db: Db, siteId: string, id: string, parameter = '/goal'): GoalFilter {
  const filter = findGoalFilter(db, siteId, id);
  if (!filter) throw ApiError.invalidParam([{ path: parameter, message: 'must be the id of one of this site\'s goals' }]);
  return filter;
}
