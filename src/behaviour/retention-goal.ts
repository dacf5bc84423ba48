// retention-v2's goal=<id>: the goal a retention report starts on. It names one of the report's site's goals; any
// other id (another site's goal, or none at all) is a 404 like a missing site, so nothing tells a goal of another
// tenant from one that does not exist. (The V2 reports' goal filter refuses it as a bad parameter instead: there
// it narrows visits, here it names what the cohorts are made of.)
import type { Db } from '../db/open.ts';
import { findGoalFilter } from '../goals/site-goals.ts';
import { ApiError } from '../http/errors.ts';
import { type QueryValues, single } from '../reading/common-params.ts';
import type { GoalFilter } from '../vocabulary/goal-rule.ts';

/** @example retentionGoalOf(context.db, 'blog', { goal: 'g_1' })?.rule.kind // 'pageview' */
export function retentionGoalOf(db: Db, siteId: string, query: QueryValues): GoalFilter | undefined {
  const id = single(query, 'goal');
  if (id === undefined) return undefined;
  const goal = findGoalFilter(db, siteId, id);
  if (!goal) throw ApiError.notFound('No such goal on this site');
  return goal;
}
