// POST /workspaces/:slug/analysis/funnels-v2: runs the funnel as of the projector's position (after the bounded
// wait) and returns the step counts with an execution_id pinning the query and that watermark.
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import type { AnalysisContext } from './analysis-context.ts';
import { buildAnalysisMeta } from './analysis-meta.ts';
import { resolveAnalysisScope } from './analysis-scope.ts';
import type { FunnelAnswer } from './answers.ts';
import { type Execution, signExecution } from './execution.ts';
import type { FunnelQuery } from './funnel-query.ts';
import { funnelMeasures, funnelReport } from './funnel-report.ts';
import { readNewExecution } from './pinned-population.ts';

/**
 * `caughtUp`: whether the wait for the projector passed every event committed before the request.
 * @example const answer = runFunnel(context, workspace, query, caughtUp); // on the analysis thread (analysis-job.ts)
 */
export function runFunnel(context: AnalysisContext, workspace: WorkspaceRow, query: FunnelQuery, caughtUp: boolean): FunnelAnswer {
  const scope = resolveAnalysisScope(context, workspace, query);
  const { freshness, people } = readNewExecution(context.db, scope.siteIds, query, context.limits.maxFunnelEvents);
  const execution: Execution = {
    watermarkSeq: freshness.projectedSeq,
    watermarkMs: freshness.watermarkMs,
    projectedThroughMs: freshness.projectedThroughMs,
    caughtUp,
  };
  const { data, truncated } = funnelReport(query, people);
  return {
    meta: buildAnalysisMeta({ scope, query, execution, measures: funnelMeasures, truncated, now: context.clock.now() }),
    data: { execution_id: signExecution(context, scope, query, execution), ...data },
  };
}
