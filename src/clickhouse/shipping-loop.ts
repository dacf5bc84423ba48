// The server's background shipper (CLICKHOUSE_URL set): runs the exactly-once shipper (shipper.ts) whenever the
// projector advances, and on a timer, in large batches until ClickHouse holds every projected event. Ingest never
// waits for it: it only reads SQLite. When ClickHouse fails it waits, doubling the wait up to a bound, and tries
// again; the position lives in ClickHouse, so nothing is lost or doubled across failures. Its metrics are CONTRACT 12's.
// The loop runs on its own thread (shipping-thread.ts, with its own SQLite connection) when the server gives it the
// thread's bundle, so a batch's SQLite read and JSON never hold the HTTP thread; inline otherwise (tests of src/, an
// in-memory database). Either way the HTTP thread keeps the metrics, the lag and the waits for a position.
import { Worker } from 'node:worker_threads';
import type { Db } from '../db/open.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import type { ClickHouse, ClickHouseOptions } from './client.ts';
import { applyClickHouseSchema } from './schema.ts';
import { carryDeletions } from './deletion-mutations.ts';
import { createShipper } from './shipper.ts';
import { countEventsAfter } from './sqlite-source.ts';
import { defaultLeaseMs, newLeaseHolder, releaseShippingLease, ShippingLeaseHeldError, takeShippingLease, type LeaseHolder } from './shipping-lease.ts';

export interface ShippingSettings {
  /**
   * Events per batch (default 5,000 inline, 20,000 on the thread). Inline, the batch's SQLite read and JSON run on
   * the server's HTTP thread (50,000 took 1.1 s there, npm run bench -- clickhouse), so the default keeps each stall
   * near a tenth of that; on its own thread a batch stalls nothing and larger batches ship faster.
   */
  batchSize?: number;
  /** A look even without a wake-up (default 5 s): catches events projected by another process. */
  intervalMs?: number;
  /** The first wait after a failure, doubled after each further one up to maxBackoffMs (defaults 500 ms, 30 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** The shipping lease's length without renewal (default 60 s; shipping-lease.ts): tests shorten it. */
  leaseMs?: number;
}

export interface ShippingLoopOptions extends ShippingSettings {
  db: Db;
  clickhouse: ClickHouse;
  registry: MetricsRegistry;
  onError?: (error: unknown) => void;
  /** The time deletions are marked with (default Date.now; inline only: a function cannot reach the thread). */
  now?: () => number;
  /** Run the loop on a worker thread: its bundle (dist/clickhouse-shipping-thread.mjs) and ClickHouse's settings. */
  thread?: { file: string; connection: ClickHouseOptions; nativeBinding?: string };
}

export interface ShippingLoop {
  /** Where the loop runs. */
  readonly kind: 'thread' | 'inline';
  /** The projector advanced: ship now (or right after the batch in flight). Does nothing during a backoff wait. */
  wake(): void;
  /** Events the SQLite log holds that ClickHouse does not (as of the last position read from ClickHouse). */
  lagEvents(): number;
  /**
   * Resolves true once ClickHouse holds every event up to `seq` (shipping starts at once), false after `timeoutMs`,
   * on close, or at once while shipping fails (from a failed attempt until a batch goes through): a read's bounded
   * wait, as the projector's catchUp is, which does not wait out a backoff.
   */
  waitForShipped(seq: number, timeoutMs: number): Promise<boolean>;
  /**
   * The position ClickHouse holds (on a cluster: every shard), as its last answer said; undefined before its first
   * answer and after a failure until it answers again, so what depends on it (trimming the log) pauses meanwhile.
   */
  heldPosition(): number | undefined;
  /** Stops: the request in flight finishes or fails (each is bounded by the client's timeout), none starts after. */
  close(): Promise<void>;
}

/** What the loop tells its host: the position ClickHouse holds after each batch (and events shipped in it), failures. */
export interface ShippingReports {
  shipped(through: number, events: number): void;
  failed(error: unknown): void;
}

export interface ShippingRun {
  wake(): void;
  close(): Promise<void>;
}

/** The thread's data (structured-cloned: plain values only). */
export interface ShippingThreadData extends ShippingSettings {
  databasePath: string;
  /** The loop's lease holder, made on the HTTP thread: a thread started again after dying renews the same lease. */
  leaseHolder: LeaseHolder;
  connection: ClickHouseOptions;
  nativeBinding?: string;
}
/** From the HTTP thread to the shipping thread. */
export type ShippingCommand = { type: 'wake' } | { type: 'close' };
/** From the shipping thread to the HTTP thread. */
export type ShippingReport = { type: 'shipped'; through: number; events: number } | { type: 'error'; message: string } | { type: 'ready' };

/** The loop itself, on whichever thread calls it: ship until caught up, carry deletions, sleep or back off, again. */
export function runShipping(options: { db: Db; clickhouse: ClickHouse; now?: () => number; batchSize: number; leaseHolder?: LeaseHolder } & ShippingSettings, reports: ShippingReports): ShippingRun {
  const { db, clickhouse } = options;
  // One shipper per data directory (shipping-lease.ts): taken or renewed before every batch, and on a timer while a
  // batch runs (a batch can wait on ClickHouse for minutes); given back on close. Real time, never a test's clock.
  const holder = options.leaseHolder ?? newLeaseHolder('server');
  const leaseMs = options.leaseMs ?? defaultLeaseMs;
  let holding = false;
  const holdLease = () => {
    const taken = takeShippingLease(db, holder, Date.now(), leaseMs);
    holding = taken.held;
    if (!taken.held) throw new ShippingLeaseHeldError(taken.by, 'server');
  };
  const renewal = setInterval(() => {
    try {
      if (holding) holdLease();
    } catch {
      // lost or unwritable: the next batch's own check stops it
    }
  }, leaseMs / 4);
  renewal.unref();
  const intervalMs = options.intervalMs ?? 5000;
  const firstBackoffMs = options.backoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const shipper = createShipper({ db, clickhouse, batchSize: options.batchSize });
  let stopped = false;
  let woken = false;
  let schemaReady = false;
  let interrupt: (() => void) | undefined;
  /** Resolves after ms, or earlier on close (and on wake, when `wakes`). */
  const pause = (ms: number, wakes: boolean) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        interrupt = undefined;
        resolve();
      }
      interrupt = () => {
        if (stopped || wakes) done();
      };
    });

  async function shipUntilCaughtUp(): Promise<void> {
    // Held by another shipper: nothing is shipped, not even the schema (a failure: looked at again after the backoff).
    holdLease();
    if (!schemaReady) {
      // Idempotent (`sightline clickhouse init` does the same): a new database works without a manual step.
      await applyClickHouseSchema(clickhouse);
      schemaReady = true;
    }
    let through = 0;
    for (;;) {
      if (stopped) return;
      holdLease();
      const batch = await shipper.shipBatch();
      through = batch.through;
      reports.shipped(batch.through, batch.events);
      if (batch.events === 0) break;
    }
    // Between batches, never during one: a deletion is sent once ClickHouse holds every event it names.
    await carryDeletions(db, clickhouse, through, (options.now ?? Date.now)());
  }

  const running = (async () => {
    let backoffMs = firstBackoffMs;
    while (!stopped) {
      woken = false;
      try {
        await shipUntilCaughtUp();
        backoffMs = firstBackoffMs;
      } catch (error) {
        reports.failed(error);
        await pause(backoffMs, false);
        backoffMs = Math.min(maxBackoffMs, backoffMs * 2);
        continue;
      }
      if (!woken && !stopped) await pause(intervalMs, true);
    }
  })();

  return {
    wake() {
      woken = true;
      interrupt?.();
    },
    async close() {
      stopped = true;
      interrupt?.();
      await running;
      clearInterval(renewal);
      if (holding) releaseShippingLease(db, holder);
    },
  };
}

/** The loop on its own thread, started again if the thread dies (the position is ClickHouse's: nothing to repair). */
function runOnThread(thread: NonNullable<ShippingLoopOptions['thread']>, options: ShippingLoopOptions, reports: ShippingReports): ShippingRun {
  const data: ShippingThreadData = {
    databasePath: options.db.name,
    leaseHolder: newLeaseHolder('server'),
    connection: thread.connection,
    nativeBinding: thread.nativeBinding,
    batchSize: options.batchSize,
    intervalMs: options.intervalMs,
    backoffMs: options.backoffMs,
    maxBackoffMs: options.maxBackoffMs,
    leaseMs: options.leaseMs,
  };
  let worker: Worker;
  let closing = false;
  let closed: Promise<void> | undefined;
  const start = () => {
    worker = new Worker(thread.file, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 16 } });
    worker.on('message', (report: ShippingReport) => {
      if (report.type === 'shipped') reports.shipped(report.through, report.events);
      else if (report.type === 'error') reports.failed(new Error(report.message));
    });
    worker.on('error', (error) => reports.failed(error));
    // A thread that died (out of memory, a bug) starts again, after a pause so a thread that cannot start does not spin.
    worker.on('exit', () => {
      if (!closing) setTimeout(() => (closing ? undefined : start()), 1000).unref();
    });
  };
  start();
  return {
    wake: () => worker.postMessage({ type: 'wake' } satisfies ShippingCommand),
    close: () => {
      if (!closed) {
        closing = true;
        closed = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        worker.postMessage({ type: 'close' } satisfies ShippingCommand);
      }
      return closed;
    },
  };
}

export function startShippingLoop(options: ShippingLoopOptions): ShippingLoop {
  const { db, registry } = options;
  const shipped = registry.counter('sightline_clickhouse_shipped_total', 'Events shipped to ClickHouse by this process');
  const errors = registry.counter('sightline_clickhouse_errors_total', 'Failed shipping attempts to ClickHouse (each is retried with backoff)');
  // Both series exist from the start (0), so a scrape tells "none yet" from "not configured".
  shipped.inc(undefined, 0);
  errors.inc(undefined, 0);
  // Until ClickHouse first answers, everything the log holds counts as lag.
  let shippedThrough = 0;
  registry.gauge('sightline_clickhouse_lag_events', 'Events stored in SQLite that ClickHouse does not hold yet', () => countEventsAfter(db, shippedThrough));

  let stopped = false;
  let knowsPosition = false;
  let failedSinceShipped = false;
  const waiters = new Set<{ seq: number; resolve: (shipped: boolean) => void }>();
  const reports: ShippingReports = {
    shipped(through, events) {
      shippedThrough = through;
      knowsPosition = true;
      failedSinceShipped = false;
      if (events > 0) shipped.inc(undefined, events);
      for (const waiter of waiters) {
        if (waiter.seq <= through) {
          waiters.delete(waiter);
          waiter.resolve(true);
        }
      }
    },
    failed(error) {
      failedSinceShipped = true;
      errors.inc();
      options.onError?.(error);
      // Reads waiting for a shipper that just failed answer now (503 while ClickHouse is down, or with what it holds),
      // rather than at the end of their wait: the next attempt comes only after the backoff.
      for (const waiter of waiters) waiter.resolve(false);
      waiters.clear();
    },
  };
  const run = options.thread
    ? runOnThread(options.thread, options, reports)
    : runShipping({ db, clickhouse: options.clickhouse, now: options.now, batchSize: options.batchSize ?? 5000, intervalMs: options.intervalMs, backoffMs: options.backoffMs, maxBackoffMs: options.maxBackoffMs, leaseMs: options.leaseMs }, reports);

  return {
    kind: options.thread ? 'thread' : 'inline',
    wake: () => run.wake(),
    lagEvents: () => countEventsAfter(db, shippedThrough),
    heldPosition: () => (knowsPosition && !failedSinceShipped ? shippedThrough : undefined),
    waitForShipped(seq, timeoutMs) {
      if (seq <= 0 || (knowsPosition && shippedThrough >= seq)) return Promise.resolve(true);
      // Stopped, or failing since its last batch: no wait, as above.
      if (stopped || failedSinceShipped) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const waiter = {
          seq,
          resolve: (shipped: boolean) => {
            clearTimeout(timer);
            resolve(shipped);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(false);
        }, timeoutMs);
        waiters.add(waiter);
        run.wake();
      });
    },
    async close() {
      stopped = true;
      for (const waiter of waiters) waiter.resolve(false);
      waiters.clear();
      await run.close();
    },
  };
}
