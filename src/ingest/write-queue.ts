// Group commit: the events of every request that arrived while the previous commit ran go into the next
// transaction; each request's promise resolves only after that transaction has committed, so a 202 means durable
// and visible. One commit is in flight at a time. The queue is bounded: when full, callers get 503 overloaded.
import type { Clock } from '../clock.ts';
import { ApiError } from '../http/errors.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import type { Committer } from './committer.ts';
import type { WriteBatch, WriteResult } from './store-group.ts';

export type { DlqInput, WriteBatch, WriteResult } from './store-group.ts';

interface PendingWrite {
  batch: WriteBatch;
  size: number;
  resolve(result: WriteResult): void;
  reject(error: unknown): void;
}

export interface WriteQueueOptions {
  /** Events waiting at most; past it, submit() refuses with 503. */
  maxPendingEvents?: number;
  /** Events in one transaction at most (a commit stays short). */
  maxEventsPerCommit?: number;
  /**
   * Commits handed to the writer before the previous one answered. The writer runs them in order, so the next
   * group is ready the moment a commit ends, and repeats are still seen by dedup.
   */
  maxCommitsInFlight?: number;
}

/**
 * Told once per committed group (never per event) and once when the queue has drained for good. The event stream
 * (src/events/stream-hub.ts) subscribes only while a stream is open, so with none open a commit costs one size check.
 */
export interface CommitWatcher {
  /** `lastSeq`: the highest seq stored so far (the projector's wake-up call). */
  committed(lastSeq: number): void;
  closed(): void;
}

export function overloaded(message = 'The ingest queue is full; retry shortly'): ApiError {
  return new ApiError(503, 'overloaded', message, undefined, { 'retry-after': '1' });
}

export class WriteQueue {
  private pending: PendingWrite[] = [];
  private pendingEvents = 0;
  /** Commits handed to the committer and not yet answered. */
  private inFlight = 0;
  private scheduled = false;
  private closed = false;
  private checkpointWanted = false;
  private draining: Promise<void> | undefined;
  private idle: (() => void)[] = [];
  private readonly watchers = new Set<CommitWatcher>();
  private readonly maxPendingEvents: number;
  private readonly maxEventsPerCommit: number;
  private readonly maxCommitsInFlight: number;
  /** The highest seq a commit of this queue has stored (reads of derived data wait for the projector to reach it). */
  private lastSeq = 0;

  constructor(
    private readonly committer: Committer,
    private readonly clock: Clock,
    private readonly metrics: AppMetrics,
    options: WriteQueueOptions = {},
  ) {
    this.maxPendingEvents = options.maxPendingEvents ?? 50_000;
    this.maxEventsPerCommit = options.maxEventsPerCommit ?? 2_000;
    this.maxCommitsInFlight = options.maxCommitsInFlight ?? 2;
    metrics.setQueueDepth(() => this.pendingEvents);
  }

  get depth(): number {
    return this.pendingEvents;
  }

  /** The highest seq this queue's commits have stored, or `floor` (the log's newest seq at start) when higher. */
  committedSeq(floor = 0): number {
    return Math.max(this.lastSeq, floor);
  }

  /**
   * Asks the committer to finish a checkpoint of the event log between two commits: now when no commit is under
   * way, else right after the one that is.
   */
  finishCheckpoint(): void {
    if (this.closed) return;
    this.checkpointWanted = true;
    if (this.inFlight === 0) this.runCheckpoint();
  }

  private runCheckpoint(): void {
    if (!this.checkpointWanted) return;
    this.checkpointWanted = false;
    this.committer.finishCheckpoint();
  }

  /** Resolves after the batch's transaction commits; rejects with 503 when the queue is full or closed. */
  submit(batch: WriteBatch): Promise<WriteResult> {
    const size = batch.events.length + batch.quarantined.length;
    if (this.closed) return Promise.reject(overloaded('The server is shutting down'));
    if (this.pendingEvents + size > this.maxPendingEvents) return Promise.reject(overloaded());
    return new Promise((resolve, reject) => {
      this.pending.push({ batch, size, resolve, reject });
      this.pendingEvents += size;
      this.schedule();
    });
  }

  /**
   * Calls `watcher` after each group commits (its requests are answered first) and when the queue has drained.
   * @example const stop = writeQueue.watchCommits({ committed: () => readNewRows(), closed: () => endStream() });
   */
  watchCommits(watcher: CommitWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Stops accepting, waits until everything accepted so far has committed, and stops the committer. */
  drain(): Promise<void> {
    this.draining ??= (async () => {
      this.closed = true;
      if (this.pending.length > 0 || this.inFlight > 0 || this.scheduled) await new Promise<void>((resolve) => this.idle.push(resolve));
      this.tellWatchers('closed');
      await this.committer.close();
    })();
    return this.draining;
  }

  private tellWatchers(what: keyof CommitWatcher): void {
    if (this.watchers.size === 0) return;
    for (const watcher of [...this.watchers]) {
      try {
        watcher[what](this.lastSeq);
      } catch {
        // A watcher's failure is its own: the commit it hears about has happened and been answered.
      }
    }
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxCommitsInFlight) return;
    this.scheduled = true;
    // At the end of this event-loop turn, so whatever arrived in the same turn joins the commit.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    this.inFlight++;
    const group: PendingWrite[] = [];
    let events = 0;
    while (this.pending.length > 0 && (group.length === 0 || events + this.pending[0]!.size <= this.maxEventsPerCommit)) {
      const next = this.pending.shift()!;
      group.push(next);
      events += next.size;
    }
    this.pendingEvents -= events;
    try {
      const { outcomes, lastSeq, commitMs } = await this.committer.commit(
        group.map((write) => write.batch),
        this.clock.now(),
      );
      this.metrics.flushLatencyMs.observe(commitMs);
      this.metrics.commitBatchEvents.observe(events);
      this.lastSeq = Math.max(this.lastSeq, lastSeq);
      group.forEach((write, index) => {
        const outcome = outcomes[index]!;
        if (outcome.ok) write.resolve(outcome.result);
        else write.reject(new Error(`ingest write failed: ${outcome.message}`));
      });
      this.tellWatchers('committed');
    } catch {
      // The transaction failed as a whole (disk full, lock held too long, writer thread died): nothing is durable.
      for (const write of group) write.reject(overloaded('The events could not be committed; retry shortly'));
    }
    this.inFlight--;
    if (this.inFlight === 0) this.runCheckpoint();
    // Everything that arrived during the commit goes into the next one, at once.
    if (this.pending.length > 0) this.schedule();
    else if (this.inFlight === 0 && !this.scheduled) for (const resolve of this.idle.splice(0)) resolve();
  }
}
