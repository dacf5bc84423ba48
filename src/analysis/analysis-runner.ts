// Where analysis jobs compute: on the analysis thread (dist/analysis-thread.mjs, started on the first job, started
// again if it exits), one at a time, with at most `maxWaiting` jobs waiting behind the running one; or inline on
// the HTTP thread where no bundle exists (a vitest run from src/ without a build, an in-memory database). It runs
// whatever jobs it is given: their handlers are the domains' (src/analysis-jobs.ts), never known here.
import type { ClickHouseOptions } from '../clickhouse/client.ts';
import { Worker } from 'node:worker_threads';
import { overloaded } from '../ingest/write-queue.ts';
import { type CursorContext, cursorSecretOf } from '../reading/cursor.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { AnalysisLimits } from './analysis-context.ts';
import type { AnalysisGate } from './analysis-gate.ts';
import { type AnalysisJob, type AnalysisJobHandlers, type AnalysisOutcome, answerOf, runAnalysisJob } from './analysis-job.ts';

/** Jobs that may wait behind the running one; one more is refused with 503 overloaded. */
export const defaultMaxWaiting = 8;
/** Below the HTTP thread (0), above the projector (19): an analysis yields to acknowledgements, not to projection. */
export const analysisNiceness = 10;

/** What the runner hands the analysis thread when it starts it (src/analysis-thread.ts). */
export interface AnalysisThreadData {
  databasePath: string;
  /** The database's cursor secret (execution_id is signed with it): a read-only connection could not store one. */
  cursorSecret: Uint8Array;
  limits: AnalysisLimits;
  /** Nice value of this thread: acknowledgements and short reads go first when the cores are busy. */
  niceness: number;
  /** Tests only (src/analysis/analysis-gate.ts). */
  gate?: SharedArrayBuffer;
  nativeBinding?: string;
  /**
   * With CLICKHOUSE_URL set: the thread's jobs read history from ClickHouse (read-model/clickhouse/analysis-read-model.ts);
   * LOG_RETAIN_DAYS says which days the embedded log may have lost (by this thread's clock).
   */
  clickhouse?: { connection: ClickHouseOptions; logRetainDays?: number };
}

/**
 * On the thread, the bundle (file) composes the handlers and its read model itself; inline, they are given here,
 * with the HTTP thread's read model for a wait that already ran (it answers with that outcome).
 */
export type AnalysisRunnerMode =
  | { kind: 'thread'; file: string }
  | { kind: 'inline'; jobs: AnalysisJobHandlers; readModelFor: (caughtUp: boolean) => ReadModel };

export interface AnalysisRunnerOptions {
  /** The HTTP thread's context: the database's path and cursor secret (generated here if missing). */
  context: CursorContext;
  mode: AnalysisRunnerMode;
  limits: AnalysisLimits;
  maxWaiting?: number;
  /** Counts each job's outcome (the /metrics counter sightline_analysis_jobs_total). */
  count?: (outcome: AnalysisJobOutcome) => void;
  /** Tests only: holds every job on the thread until released (src/analysis/analysis-gate.ts). */
  gate?: AnalysisGate;
  nativeBinding?: string;
  /** ClickHouse's connection and LOG_RETAIN_DAYS, for the thread's read model (CLICKHOUSE_URL set). */
  clickhouse?: { connection: ClickHouseOptions; logRetainDays?: number };
}

export interface AnalysisRunner<Job extends AnalysisJob = AnalysisJob> {
  readonly kind: 'thread' | 'inline';
  /** The answer's JSON text; rejects with the job's ApiError as thrown, 503 overloaded when the queue is full. */
  run(job: Job): Promise<string>;
  /** Jobs waiting behind the running one. */
  waiting(): number;
  /** Jobs waiting are refused (503), a running one is stopped (a read-only computation has nothing to save). */
  close(): Promise<void>;
}

/** answered; refused (an ApiError of the computation); failed (a 500); overloaded (the queue was full or closing). */
export type AnalysisJobOutcome = 'answered' | 'refused' | 'failed' | 'overloaded';

function outcomeOf(outcome: AnalysisOutcome): AnalysisJobOutcome {
  return outcome.ok ? 'answered' : 'refusal' in outcome ? 'refused' : 'failed';
}

const shuttingDown = () => overloaded('The server is shutting down');

/** @example const analysis = createAnalysisRunner<AnyAnalysisJob>({ context, mode: { kind: 'thread', file }, limits: defaultAnalysisLimits }); */
export function createAnalysisRunner<Job extends AnalysisJob>(options: AnalysisRunnerOptions): AnalysisRunner<Job> {
  const count = options.count ?? (() => undefined);
  if (options.mode.kind === 'inline') {
    if (options.gate) throw new Error('the analysis gate holds jobs on the analysis thread: it needs the thread');
    const { jobs, readModelFor } = options.mode;
    const side = { db: options.context.db, random: options.context.random, limits: options.limits, readModelFor };
    let closed = false;
    return {
      kind: 'inline',
      run: async (job) => {
        if (closed) {
          count('overloaded');
          throw shuttingDown();
        }
        const outcome = await runAnalysisJob(side, jobs, job);
        count(outcomeOf(outcome));
        return answerOf(outcome);
      },
      waiting: () => 0,
      close: async () => {
        closed = true;
      },
    };
  }
  return createThreadRunner(options.mode.file, options, count);
}

interface Pending {
  text: string;
  resolve(answer: string): void;
  reject(error: Error): void;
}

/** What the thread tells the runner: a job's outcome (JSON text), and its end (the running job, if any, is lost). */
interface ThreadEvents {
  answered(message: string): void;
  exited(thread: Worker, code: number, crash: Error | undefined): void;
}

/** Starts the analysis thread and routes its messages: 'ready', the test gate's 'held', and outcomes. */
function startThread(file: string, options: AnalysisRunnerOptions, events: ThreadEvents): Worker {
  const data: AnalysisThreadData = {
    databasePath: options.context.db.name,
    cursorSecret: cursorSecretOf(options.context),
    limits: options.limits,
    niceness: analysisNiceness,
    gate: options.gate?.buffer,
    nativeBinding: options.nativeBinding,
    clickhouse: options.clickhouse,
  };
  // The process's small young generation (bin/sightline): a 48 MiB one gained the funnel nothing once it read plain
  // values into typed arrays (docs/analysis.md, "Cost"), and would only hold more memory.
  const thread = new Worker(file, { workerData: data });
  thread.on('message', (message: string) => {
    if (message === 'ready') return;
    if (message === 'held') return options.gate?.arrive();
    events.answered(message);
  });
  let crash: Error | undefined;
  thread.on('error', (error) => {
    // 'exit' follows: the running job fails there, with this error's text in the server's log.
    crash = error;
  });
  thread.on('exit', (code) => events.exited(thread, code, crash));
  return thread;
}

function createThreadRunner<Job extends AnalysisJob>(file: string, options: AnalysisRunnerOptions, count: (outcome: AnalysisJobOutcome) => void): AnalysisRunner<Job> {
  const maxWaiting = options.maxWaiting ?? defaultMaxWaiting;
  const waiting: Pending[] = [];
  let worker: Worker | undefined;
  let running: Pending | undefined;
  let closing = false;
  let closed: Promise<void> | undefined;

  const events: ThreadEvents = {
    answered(message) {
      const job = running;
      running = undefined;
      if (job) {
        const outcome = JSON.parse(message) as AnalysisOutcome;
        count(outcomeOf(outcome));
        try {
          job.resolve(answerOf(outcome));
        } catch (error) {
          job.reject(error as Error);
        }
      }
      next();
    },
    exited(thread, code, crash) {
      if (worker === thread) worker = undefined;
      const job = running;
      running = undefined;
      // Out of memory or a bug: this job is a 500; the next one starts a new thread.
      if (job) count(closing ? 'overloaded' : 'failed');
      job?.reject(closing ? shuttingDown() : new Error(`the analysis thread exited with code ${code}${crash ? `: ${crash.stack ?? crash.message}` : ''}`));
      next();
    },
  };

  const next = () => {
    if (running || closing) return;
    const job = waiting.shift();
    if (!job) return;
    running = job;
    worker ??= startThread(file, options, events);
    worker.postMessage(job.text);
  };

  return {
    kind: 'thread',
    run: (job) =>
      new Promise<string>((resolve, reject) => {
        if (closing || (running && waiting.length >= maxWaiting)) {
          count('overloaded');
          return reject(closing ? shuttingDown() : overloaded('Too many analysis requests are waiting; retry shortly'));
        }
        waiting.push({ text: JSON.stringify(job), resolve, reject });
        next();
      }),
    waiting: () => waiting.length,
    close: () => {
      if (closed) return closed;
      closing = true;
      for (const job of waiting.splice(0)) {
        count('overloaded');
        job.reject(shuttingDown());
      }
      const current = worker;
      if (!current) return (closed = Promise.resolve());
      closed = new Promise<void>((resolve) => current.once('exit', () => resolve()));
      // A job in progress is stopped where it is: it only reads. Idle, the thread closes its connection itself.
      if (running) void current.terminate();
      else current.postMessage('close');
      return closed;
    },
  };
}
