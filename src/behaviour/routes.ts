// The behaviour reports (CONTRACT section 10, docs/reports.md): journeys-v2, page-flow-v2 and retention-v2, with the
// V2 { meta, data } envelope. Thin handlers: access (401/404/403) → parameters (400) → the bounded wait for the
// projector → the report, on the analysis thread (behaviour-jobs.ts) so this thread keeps acknowledging ingest.
import { getQuery, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import type { AnalysisRunner } from '../analysis/analysis-runner.ts';
import { refusals } from '../http/refusals.ts';
import { jsonText } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { commonParams, limitParam } from '../reading/common-param-docs.ts';
import { v2Refusals } from '../reading/common-param-errors.ts';
import { parseCommonParams, type QueryValues } from '../reading/common-params.ts';
import { resolveReportSite, toReportScope } from '../reading/scope.ts';
import { JourneysAnswer, PageFlowAnswer, RetentionAnswer } from './answers.ts';
import type { AnyBehaviourJob } from './behaviour-jobs.ts';
import { retentionGoalOf } from './retention-goal.ts';
import { defaultBehaviourLimit, defaultSteps, maxBehaviourLimit, maxSteps, minSteps, parseJourneysParams, parsePageFlowParams, parseRetentionPeriod } from './behaviour-params.ts';

// 503 overloaded: more analysis requests wait for the analysis thread than its queue holds (Retry-After).
const behaviourRefusals = refusals(v2Refusals, { 503: ['overloaded'] });

/** `path` names page flow's page, so there it is no filter: `withoutPathFilter` leaves it out of the common ones. */
function request(context: AppContext, event: H3Event, options: { withoutPathFilter?: boolean } = {}) {
  const site = resolveReportSite(event, context, { dashboard: true });
  const query = getQuery(event) as QueryValues;
  const { path: _page, ...rest } = query;
  const params = parseCommonParams(options.withoutPathFilter ? rest : query);
  return { query, params, scope: toReportScope(context, site, params.allSites) };
}

/**
 * @example mountBehaviour(h3, context, () => projection.catchUp(), analysis);
 */
export function mountBehaviour(app: H3, context: AppContext, waitForProjection: () => Promise<boolean>, analysis: AnalysisRunner<AnyBehaviourJob>): void {
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/journeys-v2',
    refusals: behaviourRefusals,
    summary: 'The most common paths of pages within visits, from the entry page, from start_path or up to end_path',
    query: [
      ...commonParams,
      { name: 'start_path', description: 'Journeys from the first pageview of this path in each visit that has one' },
      { name: 'end_path', description: 'Journeys up to the last pageview of this path in each visit that has one (not with start_path)' },
      { name: 'steps', description: `Pages per journey, ${minSteps}-${maxSteps}, default ${defaultSteps}`, schema: { type: 'string', pattern: '^\\d+$' } },
      limitParam(defaultBehaviourLimit, maxBehaviourLimit),
    ],
    answer: JourneysAnswer,
    handler: async (event) => {
      const { query, params, scope } = request(context, event);
      const options = parseJourneysParams(query);
      const caughtUp = await waitForProjection();
      return jsonText(await analysis.run({ kind: 'journeys', now: context.clock.now(), caughtUp, scope, params, options }));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/page-flow-v2',
    refusals: behaviourRefusals,
    summary: 'The pages viewed just before and just after one page, and the visits that left from it',
    // `path` is the page here, not the common path filter.
    query: [...commonParams.filter((param) => param.name !== 'path'), { name: 'path', description: 'The page (one path; no path filter here)', required: true }, limitParam(defaultBehaviourLimit, maxBehaviourLimit)],
    answer: PageFlowAnswer,
    handler: async (event) => {
      const { query, params, scope } = request(context, event, { withoutPathFilter: true });
      const options = parsePageFlowParams(query);
      const caughtUp = await waitForProjection();
      return jsonText(await analysis.run({ kind: 'page-flow', now: context.clock.now(), caughtUp, scope, params, options }));
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/reports/retention-v2',
    refusals: behaviourRefusals,
    summary: 'Weekly or monthly cohorts of people by first visit, and how many come back in each later period',
    query: [
      ...commonParams.filter((param) => ['from', 'to', 'scope', 'internal', 'timezone', 'bots'].includes(param.name)),
      { name: 'period', description: 'week (ISO weeks, Monday UTC) or month', required: true, schema: { enum: ['week', 'month'] } },
      {
        name: 'goal',
        description:
          'Start on a goal of the site (its id): a cohort is the people whose first conversion ever on it falls in the period, and returning counts those seen again (any visit) in each later period. A goal of another site is a 404.',
      },
    ],
    answer: RetentionAnswer,
    handler: async (event) => {
      const { query, params, scope } = request(context, event);
      const period = parseRetentionPeriod(query, params);
      const goal = retentionGoalOf(context.db, scope.site.id, query);
      if (goal) params.filters.goal = goal;
      const caughtUp = await waitForProjection();
      return jsonText(await analysis.run({ kind: 'retention', now: context.clock.now(), caughtUp, scope, params, period }));
    },
  });
}
