// GET /v1/sites/:siteId/reports/goals-v2 (CONTRACT section 10): each goal of the site with its unique conversions
// (visitors), conversions (events), conversion rate (visitors / the selection's visitors, a fraction like
// bounce_rate) and revenue per currency, exact, computed from raw events.
import type { AppContext } from '../context.ts';
import { listSiteGoals } from '../goals/site-goals.ts';
import type { GoalsFigures } from '../read-model/goal-questions.ts';
import type { Answer } from '../read-model/questions.ts';
import { fromMinorUnits } from '../money/minor-units.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { CommonParams } from '../reading/common-params.ts';
import { buildMeta, ratio } from '../reading/meta.ts';
import type { ReportScope } from '../reading/scope.ts';
import type { GoalsAnswer } from './answers.ts';
import { selectionOf } from './summary-report.ts';

const goalMeasures = {
  visitors: 'unique conversions: distinct anon_ids with an event converting on the goal in the range',
  conversions: 'events converting on the goal in the range (a pageview of its path, or an event of its type, with its props)',
  conversion_rate: 'visitors of the goal divided by the visitors of the selection (summary-v2\'s visitors), 4 decimals',
  revenue: 'revenue carried by the converting events, per currency, exact',
};

/** sinceMs: since=, a rolling window inside the range. */
export async function goalsReport(context: AppContext, readModel: ReadModel, scope: ReportScope, params: CommonParams, sinceMs?: number): Promise<GoalsAnswer> {
  const goals = listSiteGoals(context.db, scope.site.id);
  const answer = await readModel.goals({ ...selectionOf(scope, params), goals: goals.map((goal) => goal.filter), sinceMs });
  return goalsAnswer(context, scope, params, goals, answer);
}

/** goals-v2's answer from the read model's figures of `goals` (asked alone, or with a dashboard's other panels). */
export function goalsAnswer(context: AppContext, scope: ReportScope, params: CommonParams, goals: readonly { name: string }[], answer: Answer<GoalsFigures>): GoalsAnswer {
  return {
    meta: buildMeta({
      scope,
      params,
      measures: goalMeasures,
      freshness: answer.freshness,
      caughtUp: answer.freshness.caughtUp,
      // By design from raw events, which says nothing about a fallback: like the event endpoints' event_log.
      computedFrom: 'event_log',
      truncated: false,
      nextCursor: null,
      limit: null,
      now: context.clock.now(),
    }),
    data: {
      rows: answer.goals.map((figures, index) => ({
        goal_id: figures.id,
        name: goals[index]!.name,
        visitors: figures.visitors,
        conversions: figures.conversions,
        conversion_rate: ratio(figures.visitors, answer.visitors),
        revenue: [...figures.revenue]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([currency, amount]) => ({ currency, amount: fromMinorUnits(amount, currency) })),
      })),
    },
  };
}
