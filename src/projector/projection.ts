// The HTTP thread's handle on the projector: starts it (on its own thread, or inline on this one where no worker
// bundle exists), wakes it after commits, follows its position, and lets reads of derived data wait, bounded, until
// it has passed every event committed before them.
import { consola } from 'consola';
import { Worker } from 'node:worker_threads';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/open.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import { type BatchOptions, type BatchResult, type BatchSubscriber, projectBatch } from './project-batch.ts';
import { ProjectorLoop, type ProjectorProgress } from './projector-loop.ts';
import type { ProjectorCommand, ProjectorReport, ProjectorThreadData } from './projector-protocol.ts';
import { readProjectorPosition } from './queries/projector-state.ts';
import { reconcileProjection } from './reconcile.ts';
import { repairPathVisitors } from './repair-path-visitors.ts';
import { backfillVisitSequences } from './visit-sequences.ts';

/** How long a read of derived data waits for the projector before it answers with what is projected. */
export const projectionWaitMs = 2_000;

export interface ProjectionOptions {
  /** The HTTP thread's connection: the inline projector writes through it; both modes read the position from it. */
  db: Db;
  /**
   * 'thread': on its own thread (the bundle dist/projector-thread.mjs); 'inline': on this thread; 'manual': only when
   * a test calls projectNow (reads then wait and, past the wait, answer with what is projected).
   */
  mode: { kind: 'thread'; file: string } | { kind: 'inline' } | { kind: 'manual' };
  /** How long a read waits for the projector by default (2 s). */
  waitMs?: number;
  /** The highest seq committed so far: what a read waits for. */
  committedSeq: () => number;
  clock: Clock;
  metrics: AppMetrics;
  /** After a commit, wait this long for more before projecting (default 100 ms; a waiting read cuts it short). */
  intervalMs?: number;
  maxEventsPerBatch?: number;
  /** The projector thread also checkpoints both files' WALs every second (src/db/checkpointer.ts). */
  checkpoints?: boolean;
  /** The projector thread's checkpoint left the event log's WAL long: the ingest writer finishes it. */
  onEventLogBacklog?: () => void;
  nativeBinding?: string;
  /**
   * Told what each batch projected, inside its transaction (project-batch.ts), when the projector runs on this thread
   * (inline, manual); the thread's entry composes the same list itself (src/projector-thread.ts).
   */
  subscribers?: readonly BatchSubscriber[];
}

export interface Projection {
  readonly kind: 'thread' | 'inline' | 'manual';
  /** Every event with seq <= position is counted in the derived tables. */
  position(): number;
  /** Events up to `seq` were committed: the projector picks them up within its interval. */
  committed(seq: number): void;
  /** Waits until every event committed before the call is projected; false when `timeoutMs` ran out first. */
  catchUp(timeoutMs?: number): Promise<boolean>;
  /** Calls `listener` after each batch the projector committed; returns the function that stops it. */
  watchProgress(listener: (position: number) => void): () => void;
  /** One batch now, on this thread (inline and manual projectors only: tests drive the projector with it). */
  projectNow(options?: Partial<BatchOptions>): BatchResult;
  close(): Promise<void>;
}

interface Waiter {
  target: number;
  resolve(caughtUp: boolean): void;
  timer: NodeJS.Timeout;
}

/**
 * Nice value of the projector thread: it uses what the HTTP (and writer) threads leave of the cores, so a burst of
 * ingest is acknowledged first and projected after (at 19: 15,500 against 13,900 saturated requests/s at 10).
 */
const projectorNiceness = 19;

/** Where the projector runs, as the handle drives it. */
interface ProjectorHost {
  kind: Projection['kind'];
  /** Events up to `seq` were committed (the thread reads a shared counter; inline reads the write queue itself). */
  committed(seq: number): void;
  send(command: ProjectorCommand): void;
  close(): Promise<void>;
}

/** The handle's side of the projector: what it has passed, and who waits for it. */
interface ProgressFollower {
  position(): number;
  progressed(progress: ProjectorProgress): void;
  failed(message: string): void;
  /** Resolves true once the position reaches `target`, false after `timeoutMs`. */
  waitFor(target: number, timeoutMs: number): Promise<boolean>;
  watch(listener: (position: number) => void): () => void;
  /** Answers every waiter now (closing): true for those the position already reached. */
  releaseWaiters(): void;
}

/**
 * @example const projection = startProjection({ db, mode: { kind: 'inline' }, committedSeq: () => queue.committedSeq(), clock, metrics });
 */
export function startProjection(options: ProjectionOptions): Projection {
  reconcileProjection(options.db, options.clock.now());
  // After the reconciliation (which may drop everything to project it again) and before the projector runs.
  repairPathVisitors(options.db);
  backfillVisitSequences(options.db);
  const progress = followProgress(options);
  const batches = { intervalMs: options.intervalMs ?? 100, maxEventsPerBatch: options.maxEventsPerBatch ?? 5_000 };
  const mode = options.mode;
  const host = mode.kind === 'thread' ? startThread(mode.file, options, batches, progress) : mode.kind === 'inline' ? startInline(options, batches, progress) : startManual();

  return {
    kind: host.kind,
    position: () => progress.position(),
    committed: (seq) => host.committed(seq),
    catchUp: (timeoutMs = options.waitMs ?? projectionWaitMs) => {
      const target = options.committedSeq();
      if (progress.position() >= target) return Promise.resolve(true);
      host.send({ type: 'urgent' });
      return progress.waitFor(target, timeoutMs);
    },
    projectNow: (batch = {}) => {
      if (host.kind === 'thread') throw new Error('the projector runs on its own thread');
      const started = performance.now();
      const result = projectBatch(options.db, { maxEvents: batches.maxEventsPerBatch, now: options.clock.now(), subscribers: options.subscribers, ...batch });
      if (result.position > progress.position()) progress.progressed({ ...result, batchMs: performance.now() - started });
      return result;
    },
    watchProgress: (listener) => progress.watch(listener),
    close: async () => {
      progress.releaseWaiters();
      await host.close();
    },
  };
}

/** The position the projector reported, its metrics, its errors (logged once a minute), and the reads waiting for it. */
function followProgress(options: ProjectionOptions): ProgressFollower {
  let position = readProjectorPosition(options.db);
  const waiters = new Set<Waiter>();
  const listeners = new Set<(position: number) => void>();
  const registry = options.metrics.registry;
  const projectorEvents = registry.counter('sightline_projector_events_total', 'Events the projector has read (bots included)');
  const batchMs = registry.histogram('sightline_projector_batch_ms', 'Duration of one projector batch (ms)', [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000]);
  const delayMs = registry.histogram(
    'sightline_projector_delay_ms',
    'Per projector batch: how long its oldest event had been committed when the batch was (ms)',
    [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000],
  );
  registry.gauge('sightline_projector_lag_events', 'Events committed but not yet projected (by seq)', () => Math.max(0, options.committedSeq() - position));
  let lastErrorLogged = 0;

  return {
    position: () => position,
    progressed: (progress) => {
      position = Math.max(position, progress.position);
      projectorEvents.inc({}, progress.events);
      batchMs.observe(progress.batchMs);
      if (progress.oldestReceivedAt !== null) delayMs.observe(Math.max(0, Date.now() - progress.oldestReceivedAt));
      for (const listener of listeners) listener(position);
      for (const waiter of waiters) {
        if (waiter.target > position) continue;
        clearTimeout(waiter.timer);
        waiters.delete(waiter);
        waiter.resolve(true);
      }
    },
    failed: (message) => {
      // A failing batch is retried every second: log it once a minute, not every time.
      if (Date.now() - lastErrorLogged < 60_000) return;
      lastErrorLogged = Date.now();
      consola.error(`projector: ${message}`);
    },
    waitFor: (target, timeoutMs) =>
      new Promise<boolean>((resolve) => {
        const waiter: Waiter = {
          target,
          resolve,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            resolve(false);
          }, timeoutMs),
        };
        waiters.add(waiter);
      }),
    watch: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    releaseWaiters: () => {
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.resolve(position >= waiter.target);
      }
      waiters.clear();
    },
  };
}

type BatchSettings = { intervalMs: number; maxEventsPerBatch: number };

/** Only when a test calls projectNow. */
function startManual(): ProjectorHost {
  return { kind: 'manual', committed: () => undefined, send: () => undefined, close: async () => undefined };
}

/** The loop on this thread, through the HTTP thread's connection (no worker bundle: tests of src/). */
function startInline(options: ProjectionOptions, batches: BatchSettings, progress: ProgressFollower): ProjectorHost {
  const loop = new ProjectorLoop({
    db: options.db,
    now: () => options.clock.now(),
    committedSeq: options.committedSeq,
    ...batches,
    subscribers: options.subscribers,
    onProgress: (report) => progress.progressed(report),
    onError: (error) => progress.failed(error instanceof Error ? (error.stack ?? error.message) : String(error)),
  });
  loop.wake();
  return { kind: 'inline', committed: () => undefined, send: (command) => (command.type === 'close' ? loop.stop() : loop.wake()), close: async () => loop.stop() };
}

/** The loop on its own thread (src/projector-thread.ts), started again from its saved position if it dies. */
function startThread(file: string, options: ProjectionOptions, batches: BatchSettings, progress: ProgressFollower): ProjectorHost {
  // A shared counter, not a message per commit: the projector reads it when its interval comes round.
  const shared = new SharedArrayBuffer(8);
  const committedSeq = new BigInt64Array(shared);
  Atomics.store(committedSeq, 0, BigInt(options.committedSeq()));
  const data: ProjectorThreadData = { databasePath: options.db.name, ...batches, niceness: projectorNiceness, committedSeq: shared, checkpoints: options.checkpoints ?? false, nativeBinding: options.nativeBinding };
  let worker: Worker;
  let closing = false;
  let closed: Promise<void> | undefined;
  const start = () => {
    // A smaller young generation than V8's default (16 MiB semi-spaces) keeps the process's memory down; batches
    // allocate in bursts, so scavenges stay cheap. Under bin/sightline its --max-semi-space-size=4 overrides this
    // (a process flag wins over resourceLimits); it applies where node runs without the flags (tests).
    worker = new Worker(file, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    worker.on('message', (report: ProjectorReport) => {
      if (report.type === 'progress') progress.progressed(report);
      else if (report.type === 'error') progress.failed(report.message);
      else if (report.type === 'event-log-backlog') options.onEventLogBacklog?.();
    });
    worker.on('error', (error) => progress.failed(error.stack ?? error.message));
    // A projector that died (out of memory, a bug) starts again from its saved position.
    worker.on('exit', () => {
      if (!closing) start();
    });
  };
  start();
  return {
    kind: 'thread',
    committed: (seq) => Atomics.store(committedSeq, 0, BigInt(seq)),
    send: (command) => worker.postMessage(command),
    close: () => {
      if (!closed) {
        closing = true;
        closed = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        worker.postMessage({ type: 'close' } satisfies ProjectorCommand);
      }
      return closed;
    },
  };
}
