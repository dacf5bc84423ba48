// The HTTP thread's handle on the projector: starts it (on its own thread, or inline on this one where no worker
// bundle exists), wakes it after commits, follows its position, and lets reads of derived data wait, bounded, until
// it has passed every event committed before them.
import { consola } from 'consola';
import { Worker } from 'node:worker_threads';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/open.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import { type BatchOptions, type BatchResult, projectBatch } from './project-batch.ts';
import { ProjectorLoop, type ProjectorProgress } from './projector-loop.ts';
import type { ProjectorCommand, ProjectorReport, ProjectorThreadData } from './projector-thread.ts';
import { readProjectorPosition } from './queries/projector-state.ts';
import { reconcileProjection } from './reconcile.ts';
import { repairPathVisitors } from './repair-path-visitors.ts';

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

/**
 * @example const projection = startProjection({ db, mode: { kind: 'inline' }, committedSeq: () => queue.committedSeq(), clock, metrics });
 */
export function startProjection(options: ProjectionOptions): Projection {
  reconcileProjection(options.db, options.clock.now());
  // After the reconciliation (which may drop everything to project it again) and before the projector runs.
  repairPathVisitors(options.db);
  let position = readProjectorPosition(options.db);
  const waiters = new Set<Waiter>();
  const progressListeners = new Set<(position: number) => void>();
  const intervalMs = options.intervalMs ?? 100;
  const maxEventsPerBatch = options.maxEventsPerBatch ?? 5_000;
  const projectorEvents = options.metrics.registry.counter('sightline_projector_events_total', 'Events the projector has read (bots included)');
  const batchMs = options.metrics.registry.histogram('sightline_projector_batch_ms', 'Duration of one projector batch (ms)', [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000]);
  const delayMs = options.metrics.registry.histogram(
    'sightline_projector_delay_ms',
    'Per projector batch: how long its oldest event had been committed when the batch was (ms)',
    [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000],
  );
  options.metrics.registry.gauge('sightline_projector_lag_events', 'Events committed but not yet projected (by seq)', () => Math.max(0, options.committedSeq() - position));

  const onProgress = (progress: ProjectorProgress) => {
    position = Math.max(position, progress.position);
    projectorEvents.inc({}, progress.events);
    batchMs.observe(progress.batchMs);
    if (progress.oldestReceivedAt !== null) delayMs.observe(Math.max(0, Date.now() - progress.oldestReceivedAt));
    for (const listener of progressListeners) listener(position);
    for (const waiter of waiters) {
      if (waiter.target > position) continue;
      clearTimeout(waiter.timer);
      waiters.delete(waiter);
      waiter.resolve(true);
    }
  };
  let lastErrorLogged = 0;
  const onError = (message: string) => {
    // A failing batch is retried every second: log it once a minute, not every time.
    if (Date.now() - lastErrorLogged < 60_000) return;
    lastErrorLogged = Date.now();
    consola.error(`projector: ${message}`);
  };

  const mode = options.mode;
  const host = mode.kind === 'thread' ? startThread(mode.file) : mode.kind === 'inline' ? startInline() : startManual();

  function startManual() {
    return { kind: 'manual' as const, committed: () => undefined, send: () => undefined, close: async () => undefined };
  }

  function startInline() {
    const loop = new ProjectorLoop({
      db: options.db,
      now: () => options.clock.now(),
      committedSeq: options.committedSeq,
      intervalMs,
      maxEventsPerBatch,
      onProgress,
      onError: (error) => onError(error instanceof Error ? (error.stack ?? error.message) : String(error)),
    });
    loop.wake();
    return { kind: 'inline' as const, committed: () => undefined, send: (command: ProjectorCommand) => (command.type === 'close' ? loop.stop() : loop.wake()), close: async () => loop.stop() };
  }

  function startThread(file: string) {
    // A shared counter, not a message per commit: the projector reads it when its interval comes round.
    const shared = new SharedArrayBuffer(8);
    const committedSeq = new BigInt64Array(shared);
    Atomics.store(committedSeq, 0, BigInt(options.committedSeq()));
    const data: ProjectorThreadData = { databasePath: options.db.name, intervalMs, maxEventsPerBatch, niceness: projectorNiceness, committedSeq: shared, checkpoints: options.checkpoints ?? false, nativeBinding: options.nativeBinding };
    let worker: Worker;
    let closing = false;
    let closed: Promise<void> | undefined;
    const start = () => {
      // A smaller young generation than V8's default (16 MiB semi-spaces) keeps the process's memory down; batches
      // allocate in bursts, so scavenges stay cheap.
      worker = new Worker(file, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
      worker.on('message', (report: ProjectorReport) => {
        if (report.type === 'progress') onProgress(report);
        else if (report.type === 'error') onError(report.message);
        else if (report.type === 'event-log-backlog') options.onEventLogBacklog?.();
      });
      worker.on('error', (error) => onError(error.stack ?? error.message));
      // A projector that died (out of memory, a bug) starts again from its saved position.
      worker.on('exit', () => {
        if (!closing) start();
      });
    };
    start();
    return {
      kind: 'thread' as const,
      committed: (seq: number) => Atomics.store(committedSeq, 0, BigInt(seq)),
      send: (command: ProjectorCommand) => worker.postMessage(command),
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

  return {
    kind: host.kind,
    position: () => position,
    committed: (seq) => host.committed(seq),
    catchUp: (timeoutMs = options.waitMs ?? projectionWaitMs) => {
      const target = options.committedSeq();
      if (position >= target) return Promise.resolve(true);
      host.send({ type: 'urgent' });
      return new Promise<boolean>((resolve) => {
        const waiter: Waiter = {
          target,
          resolve,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            resolve(false);
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    projectNow: (batch = {}) => {
      if (host.kind === 'thread') throw new Error('the projector runs on its own thread');
      const started = performance.now();
      const result = projectBatch(options.db, { maxEvents: maxEventsPerBatch, now: options.clock.now(), ...batch });
      if (result.position > position) onProgress({ ...result, batchMs: performance.now() - started });
      return result;
    },
    watchProgress: (listener) => {
      progressListeners.add(listener);
      return () => progressListeners.delete(listener);
    },
    close: async () => {
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.resolve(position >= waiter.target);
      }
      waiters.clear();
      await host.close();
    },
  };
}
