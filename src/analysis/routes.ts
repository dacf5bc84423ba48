// The analysis endpoints (CONTRACT section 6): funnels-v2 and its correlation and explanation panels, structured
// envelope, admin token or a query:read key of the workspace. Thin handlers: access → body → wait → analysis, the
// last on the analysis thread (analysis-runner.ts) so this thread keeps answering and committing meanwhile.
import { type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { resolveWorkspace } from '../access/resolve-access.ts';
import { readJsonBody } from '../http/body.ts';
import { dateRangeRefusals, readStoreRefusals } from '../reading/common-param-errors.ts';
import { jsonBody, namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { jsonText } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { CorrelationAnswer, ExplanationAnswer, FunnelAnswer, TransitionBody } from './answers.ts';
import { FunnelQueryBody, toFunnelQuery } from './funnel-query.ts';
import type { AnalysisRunner } from './analysis-runner.ts';
import type { FunnelJob } from './funnel-jobs.ts';
import { checkTransition, prepareTransition, type TransitionRequest } from './run-transition.ts';
import { pathParam } from '../http/path-params.ts';

// 503 overloaded: more analysis requests wait for the analysis thread than its queue holds (Retry-After).
// readStoreRefusals: with ClickHouse configured a job reads it, and an unreachable one answers 503 backend_unavailable.
const queryRefusals = refusals(needsCredential, namedInPath, jsonBody, dateRangeRefusals, readStoreRefusals, { 400: ['too_many_values'], 503: ['overloaded'] });
const transitionRefusals = refusals(queryRefusals, { 409: ['execution_mismatch'] });

function access(event: H3Event, context: AppContext) {
  return resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'query:read' }).workspace;
}

async function readTransitionRequest(event: H3Event): Promise<TransitionRequest> {
  const body = parseBody(TransitionBody, await readJsonBody(event));
  const query = toFunnelQuery(body.query, '/query');
  const transition = { fromStep: body.transition.from_step, toStep: body.transition.to_step };
  checkTransition(query, transition);
  return { query, transition, executionId: body.execution_id };
}

/**
 * Every route reads derived data (identity bindings): it waits, bounded, for the projector (`waitForProjection`) after
 * access and the body are checked, so a refusal never waits, and before the job is handed to the analysis thread
 * (a job waiting there would hold it).
 * @example mountAnalysis(h3, context, () => projection.catchUp(), analysis);
 */
export function mountAnalysis(app: H3, context: AppContext, waitForProjection: () => Promise<boolean>, analysis: AnalysisRunner<FunnelJob>): void {
  addRoute(app, {
    method: 'POST',
    path: '/workspaces/:slug/analysis/funnels-v2',
    refusals: queryRefusals,
    summary: 'A funnel of 2-12 ordered steps counted by person, with an execution_id pinning query and watermark',
    body: FunnelQueryBody,
    answer: FunnelAnswer,
    handler: async (event) => {
      const workspace = access(event, context);
      const query = toFunnelQuery(parseBody(FunnelQueryBody, await readJsonBody(event)), '');
      const caughtUp = await waitForProjection();
      return jsonText(await analysis.run({ kind: 'funnel', now: context.clock.now(), workspace, query, caughtUp }));
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/workspaces/:slug/analysis/funnels-v2/correlation',
    refusals: transitionRefusals,
    summary: "Values over- or under-represented among people who converted at a transition of an execution, by odds ratio",
    body: TransitionBody,
    answer: CorrelationAnswer,
    handler: async (event) => {
      const workspace = access(event, context);
      const request = await readTransitionRequest(event);
      const prepared = prepareTransition(context, workspace, request);
      const caughtUp = await waitForProjection();
      return jsonText(await analysis.run({ kind: 'correlation', now: context.clock.now(), caughtUp, prepared, request }));
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/workspaces/:slug/analysis/funnels-v2/explanation',
    refusals: transitionRefusals,
    summary: 'Converted and dropped people at a transition of an execution, time to convert and what the dropped did next',
    body: TransitionBody,
    answer: ExplanationAnswer,
    handler: async (event) => {
      const workspace = access(event, context);
      const request = await readTransitionRequest(event);
      const prepared = prepareTransition(context, workspace, request);
      const caughtUp = await waitForProjection();
      return jsonText(await analysis.run({ kind: 'explanation', now: context.clock.now(), caughtUp, prepared, request }));
    },
  });
}
