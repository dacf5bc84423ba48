// When the projector runs: every interval it looks whether events were committed past its position (a batch then
// gathers many commits), and at once when a read waits for it; it then projects batch after batch, yielding to
// the event loop between batches, until it has caught up. The same loop runs on the projector thread and, where no
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

export class ProjectorLoop {
  private readonly ticker: NodeJS.Timeout;
  private immediate: NodeJS.Immediate | undefined;
  private failedAt = Number.NEGATIVE_INFINITY;
  private position: number;
  private stopped = false;

  constructor(private readonly options: ProjectorLoopOptions) {
    this.position = readProjectorPosition(options.db);
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
    let events: number;
    try {
      const result = projectBatch(this.options.db, { maxEvents: this.options.maxEventsPerBatch, now: this.options.now(), subscribers: this.options.subscribers });
      events = result.events;
      const moved = result.position > this.position;
      this.position = result.position;
      if (moved) this.options.onProgress({ ...result, batchMs: performance.now() - started });
    } catch (error) {
      this.failedAt = performance.now();
      this.options.onError(error);
      return;
    }
    // A full batch means more may be waiting: go on after whatever else this thread has to do.
    if (events === this.options.maxEventsPerBatch) this.immediate = setImmediate(() => this.runBatch());
  }
}
