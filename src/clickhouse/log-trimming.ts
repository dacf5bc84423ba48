// Trimming the SQLite log (LOG_RETAIN_DAYS, CONTRACT 12, docs/clickhouse.md "Trimming the SQLite log"): events that
// ClickHouse holds on every shard (up to the shipping loop's position) and whose day is more than LOG_RETAIN_DAYS
// before today leave the embedded log, in bounded batches, so the box's disk stops growing with history. It runs on
// the HTTP thread with the app's clock (the cut is a day of that clock), a batch at a time with a turn of the event
// loop between batches. It pauses by itself while ClickHouse is down or has not answered yet (heldPosition is then
// undefined) and never passes what ClickHouse holds, so a lagging ClickHouse holds trimming back. The projector's
// rollups, visits and identities stay; the event log's owner does the DELETE (event-store/queries/trim-events.ts).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from '../db/open.ts';
import { trimEventBatch } from '../event-store/queries/trim-events.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { dayMs, dayOf } from '../vocabulary/periods.ts';

export interface LogTrimmingOptions {
  db: Db;
  /** LOG_RETAIN_DAYS. */
  retainDays: number;
  now: () => number;
  /** The position every ClickHouse shard holds, or undefined while unknown (down, not answered yet): no trimming then. */
  heldPosition: () => number | undefined;
  registry: MetricsRegistry;
  /** Events per DELETE (default 2,000: a few milliseconds of the HTTP thread). */
  batchSize?: number;
  /** Batches per round at most (default 50), so one round stays short; the next round goes on. */
  maxBatches?: number;
  /** Rounds start this often (default 60 s). */
  intervalMs?: number;
  /** A round that failed (SQLite busy past its timeout, say): the next round tries again. */
  onError: (error: unknown) => void;
}

export interface LogTrimming {
  /** One round now: the events removed (0 while paused or when nothing is old enough). */
  trimNow(): Promise<{ trimmed: number; paused: boolean }>;
  close(): void;
}

/**
 * The first day the embedded log keeps whole: events of earlier days may have left it (they are in ClickHouse).
 * @example trimCutDay(Date.parse('2026-03-20T12:00:00Z'), 7) // the day number of 2026-03-13
 */
export function trimCutDay(nowMs: number, retainDays: number): number {
  return dayOf(nowMs) - retainDays;
}

/** The last day trimming may have taken from the log (the day before its cut), by the given clock; never without LOG_RETAIN_DAYS. */
export function trimmedThroughDayOf(now: () => number, retainDays: number | undefined): () => number | undefined {
  return retainDays === undefined ? () => undefined : () => trimCutDay(now(), retainDays) - 1;
}

export function startLogTrimming(options: LogTrimmingOptions): LogTrimming {
  const { db, retainDays, now, heldPosition } = options;
  const batchSize = options.batchSize ?? 2000;
  const maxBatches = options.maxBatches ?? 50;
  const trimmedTotal = options.registry.counter('sightline_log_trimmed_total', 'Events removed from the SQLite log because ClickHouse holds them (LOG_RETAIN_DAYS)');
  trimmedTotal.inc(undefined, 0);
  let running: Promise<{ trimmed: number; paused: boolean }> | undefined;

  async function round(): Promise<{ trimmed: number; paused: boolean }> {
    let trimmed = 0;
    for (let batch = 0; batch < maxBatches; batch++) {
      // Asked before each batch: ClickHouse failing mid-round stops the round.
      const through = heldPosition();
      if (through === undefined) return { trimmed, paused: true };
      const removed = trimEventBatch(db, { through_seq: through, before_ts: trimCutDay(now(), retainDays) * dayMs, limit: batchSize });
      trimmed += removed;
      if (removed > 0) trimmedTotal.inc(undefined, removed);
      if (removed < batchSize) break;
      await nextTurn();
    }
    return { trimmed, paused: false };
  }

  const trimNow = () => {
    // One round at a time: a timer's round and an explicit one share the same run.
    running ??= round().finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => void trimNow().catch(options.onError), options.intervalMs ?? 60_000);
  timer.unref();
  return { trimNow, close: () => clearInterval(timer) };
}
