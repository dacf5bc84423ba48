// When the projector runs: every interval it looks whether events were committed past its position (a batch then
// gathers many commits), and at once when a read waits for it; it then projects batch after batch, yielding to
// the event loop between batches, until it has caught up, with larger batches while a backlog lasts. The same loop runs on the projector thread and, where no
// worker bundle exists (tests of src/ without a build), inline.
import type { Db } from '../db/open.ts';
import { type BatchSubscriber, projectBatch } from './project-batch.ts';
import { readProjectorPosition } from './queries/projector-state.ts';

export interface ProjectorProgress {
  position: number;
  events: number;
  batchMs: number;
  /** Commit time of the batch's oldest event (epoch ms). */
  oldestReceivedAt: number | null;
}

export interface ProjectorLoopOptions {
  db: Db;
  now: () => number;
  /** The highest committed seq (from the write queue, or a shared counter on the projector thread). */
  committedSeq: () => number;
  /** How often to look for committed events (a waiting read does not wait for it). */
  intervalMs: number;
  maxEventsPerBatch: number;
  /** Told what each batch projected, inside its transaction (project-batch.ts). */
  subscribers?: readonly BatchSubscriber[];
  onProgress(progress: ProjectorProgress): void;
  onError(error: unknown): void;
}

/** How long a failed batch waits before the next try (the database may be busy or full). */
const retryAfterFailureMs = 1_000;

/**
 * A backlog is read in batches up to this many times maxEventsPerBatch. On a year of history loaded at once, a batch
 * touches about one rollup row (a day's visitor set of a path, a counter shard) per event whatever its size, so ten
 * times the events write each row about ten times less often: 40% less CPU per event at 50,000 than at 5,000
 * (bench/ingest.mjs --only projector).
 */
const maxBacklogGrowth = 10;

/**
 * A batch holds sightline.db's write lock from start to end and administrative writes wait for it (5 s busy
 * timeout): a batch grows while it takes less than the first, and shrinks when it takes more than the second.
 */
const growBelowMs = 1_000;
const shrinkAboveMs = 2_500;

export class ProjectorLoop {
  private readonly ticker: NodeJS.Timeout;
  private immediate: NodeJS.Immediate | undefined;
  private failedAt = Number.NEGATIVE_INFINITY;
  private position: number;
  private stopped = false;
  /** The next batch's size: maxEventsPerBatch, or more while a backlog lasts. */
  private batchSize: number;

  constructor(private readonly options: ProjectorLoopOptions) {
    this.position = readProjectorPosition(options.db);
    this.batchSize = options.maxEventsPerBatch;
    this.ticker = setInterval(() => {
      if (this.options.committedSeq() > this.position) this.wake();
    }, options.intervalMs);
    this.ticker.unref();
  }

  /** Project now (a read is waiting, or the interval found committed events). */
  wake(): void {
    if (this.stopped || this.immediate) return;
    if (performance.now() - this.failedAt < retryAfterFailureMs) return;
    this.immediate = setImmediate(() => this.runBatch());
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.ticker);
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  private runBatch(): void {
    this.immediate = undefined;
    if (this.stopped || !this.options.db.open) return;
    const started = performance.now();
    const size = this.batchSize;
    let events: number;
    let batchMs: number;
    try {
      const result = projectBatch(this.options.db, { maxEvents: size, now: this.options.now(), subscribers: this.options.subscribers });
      events = result.events;
      batchMs = performance.now() - started;
      const moved = result.position > this.position;
      this.position = result.position;
      if (moved) this.options.onProgress({ ...result, batchMs });
    } catch (error) {
      this.failedAt = performance.now();
      this.batchSize = this.options.maxEventsPerBatch;
      this.options.onError(error);
      return;
    }
    this.batchSize = nextBatchSize(size, events === size, batchMs, this.options.maxEventsPerBatch);
    // A full batch means more may be waiting: go on after whatever else this thread has to do.
    if (events === size) this.immediate = setImmediate(() => this.runBatch());
  }
}

/**
 * The size of the batch after one of `size` events that took `batchMs`: doubled while a backlog lasts (a full batch)
 * and batches stay short, halved when one took too long, back to `base` once the projector has caught up.
 */
export function nextBatchSize(size: number, full: boolean, batchMs: number, base: number): number {
  if (!full) return base;
  if (batchMs > shrinkAboveMs) return Math.max(base, Math.floor(size / 2));
  if (batchMs < growBelowMs) return Math.min(base * maxBacklogGrowth, size * 2);
  return size;
}
