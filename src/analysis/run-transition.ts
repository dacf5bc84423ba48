// POST …/funnels-v2/correlation and …/funnels-v2/explanation: the execution's population (verified execution_id,
// same query), split at the chosen transition.
import type { WorkspaceRow } from '../admin/queries/find-workspace.ts';
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
import { readAttemptEvents } from '../read-model/sqlite/attempt-events.ts';
import { readPinnedPopulation } from './pinned-population.ts';
import { inSnapshot } from '../read-model/sqlite/snapshot.ts';
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
 * The execution's population (the funnel's own read: its step events, under the funnel's cap) and a reader of the
 * other events of the people at the transition. Call inside one snapshot.
 */
function readPeople(context: AnalysisContext, prepared: Prepared, request: TransitionRequest) {
  const { siteIds } = prepared.scope;
  const { watermarkSeq } = prepared.execution;
  const pinned = readPinnedPopulation(context.db, siteIds, request.query, watermarkSeq, context.limits.maxFunnelEvents);
  const atTransition = pinned.people.filter((person) => person.depth >= request.transition.fromStep);
  const attempts = readAttemptEvents(context.db, { siteIds, query: request.query, watermarkSeq, projectedSeq: pinned.projectedSeq, people: atTransition, population: pinned });
  const warnings =
    pinned.projectedSeq < watermarkSeq
      ? ['The projector is behind the execution (it is rebuilding): identity bindings may be missing.']
      : [];
  return { people: pinned.people, attempts, warnings };
}

/** @example return runCorrelation(context, prepared, request); */
export function runCorrelation(context: AnalysisContext, prepared: Prepared, request: TransitionRequest): CorrelationAnswer {
  // The visits and the people's other events are read in the same snapshot as the population.
  const { result, warnings } = inSnapshot(context.db, () => {
    const { people, attempts, warnings } = readPeople(context, prepared, request);
    return { warnings, result: correlate(context.db, attempts, request.query, request.transition, people, prepared.execution.watermarkSeq) };
  });
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

/** @example return runExplanation(context, prepared, request); */
export function runExplanation(context: AnalysisContext, prepared: Prepared, request: TransitionRequest): ExplanationAnswer {
  const { result, warnings } = inSnapshot(context.db, () => {
    const { people, attempts, warnings } = readPeople(context, prepared, request);
    return { warnings, result: explain(attempts, people, request.transition) };
  });
  return {
    meta: buildAnalysisMeta({ ...prepared, query: request.query, measures: explanationMeasures, truncated: result.truncated, now: context.clock.now(), warnings }),
    data: result.data,
  };
}
