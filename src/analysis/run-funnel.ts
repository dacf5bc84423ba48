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
import { readPopulation } from './population.ts';

/**
 * The execution's watermark is the position the read model read at; its freshness and its wait's outcome
 * (freshness.caughtUp) are the population's.
 * @example const answer = await runFunnel(context, workspace, query); // on the analysis thread (funnel-jobs.ts)
 */
export async function runFunnel(context: AnalysisContext, workspace: WorkspaceRow, query: FunnelQuery): Promise<FunnelAnswer> {
  const scope = resolveAnalysisScope(context, workspace, query);
  const { freshness, asOf, people } = await readPopulation(context.readModel, { scope, query, maxEvents: context.limits.maxFunnelEvents });
  const execution: Execution = {
    watermarkSeq: asOf,
    watermarkMs: freshness.watermarkMs,
    projectedThroughMs: freshness.projectedThroughMs,
    caughtUp: freshness.caughtUp,
  };
  const { data, truncated } = funnelReport(query, people);
  return {
    meta: buildAnalysisMeta({ scope, query, execution, measures: funnelMeasures, truncated, now: context.clock.now() }),
    data: { execution_id: signExecution(context, scope, query, execution), ...data },
  };
}
