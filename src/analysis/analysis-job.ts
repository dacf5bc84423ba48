// One analysis computation as plain data (it crosses to the analysis thread as a JSON string), the function that runs
// it on either side, and how its outcome, an answer or a refusal, travels back.
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import type { ResultsParams } from '../attribution/attribution-params.ts';
import { attributionResults } from '../attribution/attribution-results.ts';
import { compareRoi } from '../attribution/roi-compare.ts';
import { roiReport, type RoiParams } from '../attribution/roi.ts';
import { inSnapshot } from '../read-model/sqlite/snapshot.ts';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import type { AnalysisContext } from './analysis-context.ts';
import type { FunnelQuery } from './funnel-query.ts';
import { runFunnel } from './run-funnel.ts';
import { type PreparedTransition, runCorrelation, runExplanation, type TransitionRequest } from './run-transition.ts';

/** `now`: the HTTP thread's clock when the job was handed over (the answer's meta is as of it). */
export type AnalysisJob =
  | { kind: 'funnel'; now: number; workspace: WorkspaceRow; query: FunnelQuery; caughtUp: boolean }
  | { kind: 'correlation' | 'explanation'; now: number; prepared: PreparedTransition; request: TransitionRequest }
  // Attribution and ROI (src/attribution/): one conversion's journey is a few indexed reads, but a range holds
  // thousands of conversions (0.4 s for 6,476 on the 10M-event benchmark).
  | { kind: 'attribution'; now: number; workspace: WorkspaceRow; params: ResultsParams; caughtUp: boolean }
  | { kind: 'roi'; now: number; workspace: WorkspaceRow; params: RoiParams; caughtUp: boolean }
  | { kind: 'roi-compare'; now: number; workspace: WorkspaceRow; current: RoiParams; previous: RoiParams; caughtUp: boolean };

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
    return { ok: true, answer: JSON.stringify(answerOfJob(jobContext, job)) };
  } catch (error) {
    if (error instanceof ApiError) {
      const { status, code, message, details, headers } = error;
      return { ok: false, refusal: { status, code, message, details, headers } };
    }
    return { ok: false, failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}

function answerOfJob(context: AnalysisContext, job: AnalysisJob): unknown {
  switch (job.kind) {
    case 'funnel':
      return runFunnel(context, job.workspace, job.query, job.caughtUp);
    case 'correlation':
      return runCorrelation(context, job.prepared, job.request);
    case 'explanation':
      return runExplanation(context, job.prepared, job.request);
    case 'attribution':
      return attributionResults(context, job.workspace, job.params, job.caughtUp);
    case 'roi':
      return roiReport(context, job.workspace, job.params, job.caughtUp);
    case 'roi-compare':
      // One snapshot for both ranges: they are read as of the same projector position and share one freshness.
      return inSnapshot(context.db, () =>
        compareRoi(roiReport(context, job.workspace, job.current, job.caughtUp), roiReport(context, job.workspace, job.previous, job.caughtUp)),
      );
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
