// One analysis computation as plain data (it crosses to the analysis thread as a JSON string), the function that runs
// it on either side, and how its outcome, an answer or a refusal, travels back.
import type { WorkspaceRow } from '../admin/queries/find-workspace.ts';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import type { AnalysisContext } from './analysis-context.ts';
import type { FunnelQuery } from './funnel-query.ts';
import { runFunnel } from './run-funnel.ts';
import { type PreparedTransition, runCorrelation, runExplanation, type TransitionRequest } from './run-transition.ts';

/** `now`: the HTTP thread's clock when the job was handed over (the answer's meta is as of it). */
export type AnalysisJob =
  | { kind: 'funnel'; now: number; workspace: WorkspaceRow; query: FunnelQuery; caughtUp: boolean }
  | { kind: 'correlation' | 'explanation'; now: number; prepared: PreparedTransition; request: TransitionRequest };

/** The answer's JSON text, an ApiError's parts, or the text of anything else (a 500 on the HTTP thread). */
export type AnalysisOutcome =
  | { ok: true; answer: string }
  | { ok: false; refusal: { status: number; code: string; message: string; details?: ErrorDetail[]; headers?: Record<string, string> } }
  | { ok: false; failure: string };

/**
 * Runs a job to completion on this thread.
 * @example const outcome = runAnalysisJob(context, { kind: 'funnel', now, workspace, query, caughtUp: true });
 */
export function runAnalysisJob(context: Omit<AnalysisContext, 'clock'>, job: AnalysisJob): AnalysisOutcome {
  const jobContext: AnalysisContext = { ...context, clock: { now: () => job.now } };
  try {
    const answer =
      job.kind === 'funnel'
        ? runFunnel(jobContext, job.workspace, job.query, job.caughtUp)
        : job.kind === 'correlation'
          ? runCorrelation(jobContext, job.prepared, job.request)
          : runExplanation(jobContext, job.prepared, job.request);
    return { ok: true, answer: JSON.stringify(answer) };
  } catch (error) {
    if (error instanceof ApiError) {
      const { status, code, message, details, headers } = error;
      return { ok: false, refusal: { status, code, message, details, headers } };
    }
    return { ok: false, failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}

/**
 * The answer's JSON text, or the refusal thrown again as it was thrown (same status, code, message and details);
 * any other failure becomes an Error, which the route renders as a 500 internal_error.
 * @example const text = answerOf(outcome);
 */
export function answerOf(outcome: AnalysisOutcome): string {
  if (outcome.ok) return outcome.answer;
  if ('refusal' in outcome) {
    const { status, code, message, details, headers } = outcome.refusal;
    throw new ApiError(status, code, message, details, headers);
  }
  throw new Error(`analysis failed: ${outcome.failure}`);
}
