// One analysis job as plain data (it crosses to the analysis thread as a JSON string), the handlers that run each
// kind, and how its outcome, an answer or a refusal, travels back. The runner knows no job of its own: the domains
// that hand it work (funnels, attribution) each export their handlers, composed in src/analysis-jobs.ts.
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { AnalysisContext } from './analysis-context.ts';

/** What every job carries besides its own input. */
export interface AnalysisJob {
  /** The handler that runs it. */
  kind: string;
  /** The HTTP thread's clock when the job was handed over (the answer's meta is as of it). */
  now: number;
  /** Whether the bounded wait for the projector, before the job was handed over, passed every event committed before the request. */
  caughtUp: boolean;
}

/** Runs one kind of job: its answer is sent back as JSON. */
export type AnalysisJobHandler<Job extends AnalysisJob> = (context: AnalysisContext, job: Job) => Promise<unknown>;

/** Handlers by kind (each typed by its own job). */
export type AnalysisJobHandlers = Record<string, AnalysisJobHandler<never>>;

/** The union of the jobs a set of handlers runs. */
export type JobOf<Handlers extends AnalysisJobHandlers> = {
  [Kind in keyof Handlers]: Handlers[Kind] extends AnalysisJobHandler<infer Job> ? Job : never;
}[keyof Handlers];

/** The answer's JSON text, an ApiError's parts, or the text of anything else (a 500 on the HTTP thread). */
export type AnalysisOutcome =
  | { ok: true; answer: string }
  | { ok: false; refusal: { status: number; code: string; message: string; details?: ErrorDetail[]; headers?: Record<string, string> } }
  | { ok: false; failure: string };

/** What runs jobs on one side: everything of a job's context but its clock, and a read model per wait outcome. */
export interface AnalysisJobSide extends Omit<AnalysisContext, 'clock' | 'readModel'> {
  readModelFor(caughtUp: boolean): ReadModel;
}

/**
 * Runs a job to completion on this thread.
 * @example const outcome = await runAnalysisJob(side, handlers, { kind: 'funnel', now, caughtUp: true, workspace, query });
 */
export async function runAnalysisJob(side: AnalysisJobSide, handlers: AnalysisJobHandlers, job: AnalysisJob): Promise<AnalysisOutcome> {
  const { readModelFor, ...rest } = side;
  const context: AnalysisContext = { ...rest, clock: { now: () => job.now }, readModel: readModelFor(job.caughtUp) };
  try {
    const handler = handlers[job.kind] as AnalysisJobHandler<AnalysisJob> | undefined;
    if (!handler) throw new Error(`no analysis job of kind ${JSON.stringify(job.kind)}`);
    return { ok: true, answer: JSON.stringify(await handler(context, job)) };
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
