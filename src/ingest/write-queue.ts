// Group commit: the events of every request that arrived while the previous commit ran go into one BEGIN IMMEDIATE
// transaction; each request's promise resolves only after that transaction has committed, so a 202 means durable
// and visible. The queue is bounded: when full, callers get 503 overloaded instead of unbounded memory.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/open.ts';
import { toIso } from '../clock.ts';
import { ApiError } from '../http/errors.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import { insertDlqRow, newestDlqReceivedAt, type DlqRow } from '../dlq/queries/dlq-rows.ts';
import { bindIdentity } from './queries/identity-rows.ts';
import { eventExists, insertEvent } from './queries/event-rows.ts';
import { assignToSession } from './sessions.ts';
import type { StoredEvent, StoredEventInput } from './stored-event.ts';
import { writeListeners } from './write-listeners.ts';

export type DlqInput = Omit<DlqRow, 'received_at'>;

export interface WriteBatch {
  events: StoredEventInput[];
  quarantined: DlqInput[];
}

export interface WriteResult {
  accepted: number;
  duplicates: number;
  quarantined: number;
}

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
}

export function overloaded(): ApiError {
  return new ApiError(503, 'overloaded', 'The ingest queue is full; retry shortly', undefined, { 'retry-after': '1' });
}

export class WriteQueue {
  private pending: PendingWrite[] = [];
  private pendingEvents = 0;
  private scheduled = false;
  private closed = false;
  private idle: (() => void)[] = [];
  private readonly maxPendingEvents: number;
  private readonly maxEventsPerCommit: number;
  private readonly writeOne: (batch: WriteBatch, receivedAt: number) => WriteResult;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly metrics: AppMetrics,
    options: WriteQueueOptions = {},
  ) {
    this.maxPendingEvents = options.maxPendingEvents ?? 50_000;
    this.maxEventsPerCommit = options.maxEventsPerCommit ?? 2_000;
    // Called inside the group transaction, so better-sqlite3 runs it as a SAVEPOINT: one request's failure rolls
    // back only its own events.
    this.writeOne = db.transaction((batch: WriteBatch, receivedAt: number) => storeBatch(db, batch, receivedAt));
    metrics.setQueueDepth(() => this.pendingEvents);
  }

  get depth(): number {
    return this.pendingEvents;
  }

  /** Resolves after the batch's transaction commits; rejects with 503 when the queue is full or closed. */
  submit(batch: WriteBatch): Promise<WriteResult> {
    const size = batch.events.length + batch.quarantined.length;
    if (this.closed || this.pendingEvents + size > this.maxPendingEvents) return Promise.reject(overloaded());
    return new Promise((resolve, reject) => {
      this.pending.push({ batch, size, resolve, reject });
      this.pendingEvents += size;
      this.schedule();
    });
  }

  /** Stops accepting and resolves once everything accepted so far has committed. */
  async drain(): Promise<void> {
    this.closed = true;
    if (this.pending.length === 0 && !this.scheduled) return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // At the end of this event-loop turn: whatever arrived meanwhile joins the same commit.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const group: PendingWrite[] = [];
    let events = 0;
    while (this.pending.length > 0 && (group.length === 0 || events + this.pending[0]!.size <= this.maxEventsPerCommit)) {
      const next = this.pending.shift()!;
      group.push(next);
      events += next.size;
    }
    this.pendingEvents -= events;
    const started = performance.now();
    const outcomes: ({ ok: true; result: WriteResult } | { ok: false; error: unknown })[] = [];
    try {
      this.db
        .transaction(() => {
          const receivedAt = this.clock.now();
          for (const write of group) {
            try {
              outcomes.push({ ok: true, result: this.writeOne(write.batch, receivedAt) });
            } catch (error) {
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (error) {
      // The commit itself failed (disk full, lock held too long): nothing of the group is durable.
      for (const write of group) write.reject(error instanceof ApiError ? error : overloaded());
      this.afterFlush();
      return;
    }
    this.metrics.flushLatencyMs.observe(performance.now() - started);
    this.metrics.commitBatchEvents.observe(events);
    group.forEach((write, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) write.resolve(outcome.result);
      else write.reject(outcome.error);
    });
    this.afterFlush();
  }

  private afterFlush(): void {
    if (this.pending.length > 0) this.schedule();
    else for (const resolve of this.idle.splice(0)) resolve();
  }
}

/** Stores one request's events: repeats of (site_id, id) are acknowledged as duplicates and not stored again. */
function storeBatch(db: Db, batch: WriteBatch, receivedAt: number): WriteResult {
  let accepted = 0;
  let duplicates = 0;
  const listeners = writeListeners();
  for (const input of batch.events) {
    if (eventExists(db, input)) {
      duplicates++;
      continue;
    }
    const seq = insertEvent(db, input, receivedAt);
    const stored: StoredEvent = { ...input, seq, received_at: receivedAt };
    if (input.user_id !== null) bindIdentity(db, { site_id: input.site_id, anon_id: input.anon_id, user_id: input.user_id, ts: input.ts });
    if (!input.is_bot) assignToSession(db, stored);
    for (const listener of listeners) listener.onEventStored?.(db, stored);
    accepted++;
  }
  storeQuarantined(db, batch.quarantined, receivedAt);
  return { accepted, duplicates, quarantined: batch.quarantined.length };
}

function storeQuarantined(db: Db, rows: DlqInput[], receivedAt: number): void {
  if (rows.length === 0) return;
  // received_at is strictly increasing per site so the DLQ's ISO cursor never splits two rows.
  const newest = newestDlqReceivedAt(db, rows[0]!.site_id);
  let next = Math.max(receivedAt, newest ? Date.parse(newest) + 1 : 0);
  for (const row of rows) {
    insertDlqRow(db, { ...row, received_at: toIso(next) });
    next++;
  }
}
