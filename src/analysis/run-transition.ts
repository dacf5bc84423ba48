// POST …/funnels-v2/correlation and …/funnels-v2/explanation: the execution's population (verified execution_id,
// same query), split at the chosen transition.
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import type { AppContext } from '../context.ts';
import type { AnalysisContext } from './analysis-context.ts';
import type { FunnelQuery } from './funnel-query.ts';
import { ApiError } from '../http/errors.ts';
import { buildAnalysisMeta } from './analysis-meta.ts';
import { resolveAnalysisScope } from './analysis-scope.ts';
import type { CorrelationAnswer, ExplanationAnswer } from './answers.ts';
import { correlate, correlationMeasures } from './correlation.ts';
import { verifyExecution } from './execution.ts';
import { explain, explanationMeasures } from './explanation.ts';
import { type Population, readPopulation } from './population.ts';
import type { Transition } from './transition.ts';

export interface TransitionRequest {
  query: FunnelQuery;
  transition: Transition;
  executionId: string;
}

/** 1 <= from_step < to_step <= the number of steps. @example checkTransition(query, { fromStep: 1, toStep: 2 }); */
export function checkTransition(query: FunnelQuery, transition: Transition): void {
  const steps = query.steps.length;
  if (transition.fromStep > steps) throw ApiError.invalidPayload([{ path: '/transition/from_step', message: `must be at most ${steps}` }]);
  if (transition.toStep > steps) throw ApiError.invalidPayload([{ path: '/transition/to_step', message: `must be at most ${steps}` }]);
  if (transition.toStep <= transition.fromStep) throw ApiError.invalidPayload([{ path: '/transition/to_step', message: 'must be after from_step' }]);
}

/**
 * Verifies the execution (400/409) before any data is read; the caller waits for the projector after this.
 * @example const prepared = prepareTransition(context, workspace, request);
 */
export function prepareTransition(context: Pick<AppContext, 'db' | 'random'>, workspace: WorkspaceRow, request: TransitionRequest) {
  const scope = resolveAnalysisScope(context, workspace, request.query);
  const execution = verifyExecution(context, request.executionId, scope, request.query);
  return { scope, execution };
}

/** Plain data: it crosses to the analysis thread as JSON. */
export type PreparedTransition = ReturnType<typeof prepareTransition>;
type Prepared = PreparedTransition;

/**
 * The execution's population: the funnel's own read (its step events, under the funnel's cap, as of its watermark),
 * with each event's seq (the panels ask about attempts by position).
 */
async function readPeople(context: AnalysisContext, prepared: Prepared, request: TransitionRequest) {
  const { watermarkSeq } = prepared.execution;
  const population = await readPopulation(context.readModel, {
    scope: prepared.scope,
    query: request.query,
    asOf: watermarkSeq,
    withSeq: true,
    at: '/query',
    maxEvents: context.limits.maxFunnelEvents,
  });
  const warnings =
    population.freshness.position < watermarkSeq
      ? ['The projector is behind the execution (it is rebuilding): identity bindings may be missing.']
      : [];
  return { population, warnings };
}

function panelInput(prepared: Prepared, request: TransitionRequest, population: Population) {
  return { scope: prepared.scope, query: request.query, transition: request.transition, population, watermarkSeq: prepared.execution.watermarkSeq };
}

/** @example return await runCorrelation(context, prepared, request); */
export async function runCorrelation(context: AnalysisContext, prepared: Prepared, request: TransitionRequest): Promise<CorrelationAnswer> {
  const { population, warnings } = await readPeople(context, prepared, request);
  const result = await correlate(context.readModel, panelInput(prepared, request, population));
  return {
    meta: buildAnalysisMeta({
      ...prepared,
      query: request.query,
      measures: correlationMeasures,
      truncated: result.truncated,
      now: context.clock.now(),
      warnings: [...warnings, ...result.warnings],
    }),
    data: { factors: result.factors as CorrelationAnswer['data']['factors'] },
  };
}

/** @example return await runExplanation(context, prepared, request); */
export async function runExplanation(context: AnalysisContext, prepared: Prepared, request: TransitionRequest): Promise<ExplanationAnswer> {
  const { population, warnings } = await readPeople(context, prepared, request);
  const result = await explain(context.readModel, panelInput(prepared, request, population));
  return {
    meta: buildAnalysisMeta({ ...prepared, query: request.query, measures: explanationMeasures, truncated: result.truncated, now: context.clock.now(), warnings }),
    data: result.data,
  };
}
