// The server's background shipper (CLICKHOUSE_URL set): runs the exactly-once shipper (shipper.ts) whenever the
// projector advances, and on a timer, in large batches until ClickHouse holds every projected event. Ingest never
// waits for it: it only reads SQLite. When ClickHouse fails it waits, doubling the wait up to a bound, and tries
// again; the position lives in ClickHouse, so nothing is lost or doubled across failures. Its metrics are CONTRACT 12's.
import type { Db } from '../db/open.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import type { ClickHouse } from './client.ts';
import { applyClickHouseSchema } from './schema.ts';
import { carryDeletions } from './deletion-mutations.ts';
import { createShipper } from './shipper.ts';
import { countEventsAfter } from './sqlite-source.ts';

export interface ShippingLoopOptions {
  db: Db;
  clickhouse: ClickHouse;
  registry: MetricsRegistry;
  /**
   * Events per batch (default 5,000). The batch's SQLite read and JSON run on the server's HTTP thread: 50,000 took
   * 1.1 s there (npm run bench -- clickhouse), so the default keeps each stall near a tenth of that.
   */
  batchSize?: number;
  /** A look even without a wake-up (default 5 s): catches events projected by another process. */
  intervalMs?: number;
  /** The first wait after a failure, doubled after each further one up to maxBackoffMs (defaults 500 ms, 30 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  onError?: (error: unknown) => void;
  /** The time deletions are marked with (default Date.now). */
  now?: () => number;
}

export interface ShippingLoop {
  /** The projector advanced: ship now (or right after the batch in flight). Does nothing during a backoff wait. */
  wake(): void;
  /** Events the SQLite log holds that ClickHouse does not (as of the last position read from ClickHouse). */
  lagEvents(): number;
  /**
   * Resolves true once ClickHouse holds every event up to `seq` (shipping starts at once), false after `timeoutMs`
   * or on close: a read's bounded wait, as the projector's catchUp is.
   */
  waitForShipped(seq: number, timeoutMs: number): Promise<boolean>;
  /** Stops: the request in flight finishes or fails (each is bounded by the client's timeout), none starts after. */
  close(): Promise<void>;
}

export function startShippingLoop(options: ShippingLoopOptions): ShippingLoop {
  const { db, clickhouse, registry } = options;
  const intervalMs = options.intervalMs ?? 5000;
  const firstBackoffMs = options.backoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const shipper = createShipper({ db, clickhouse, batchSize: options.batchSize ?? 5000 });
  const shipped = registry.counter('sightline_clickhouse_shipped_total', 'Events shipped to ClickHouse by this process');
  const errors = registry.counter('sightline_clickhouse_errors_total', 'Failed shipping attempts to ClickHouse (each is retried with backoff)');
  // Both series exist from the start (0), so a scrape tells "none yet" from "not configured".
  shipped.inc(undefined, 0);
  errors.inc(undefined, 0);
  // Until ClickHouse first answers, everything the log holds counts as lag.
  let shippedThrough = 0;
  registry.gauge('sightline_clickhouse_lag_events', 'Events stored in SQLite that ClickHouse does not hold yet', () => countEventsAfter(db, shippedThrough));

  let stopped = false;
  let woken = false;
  let knowsPosition = false;
  const waiters = new Set<{ seq: number; resolve: (shipped: boolean) => void }>();
  /** Tells the waiters ClickHouse has reached. */
  function shippedUpTo(through: number) {
    shippedThrough = through;
    knowsPosition = true;
    for (const waiter of waiters) {
      if (waiter.seq <= through) {
        waiters.delete(waiter);
        waiter.resolve(true);
      }
    }
  }
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
    if (!schemaReady) {
      // Idempotent (`sightline clickhouse init` does the same): a new database works without a manual step.
      await applyClickHouseSchema(clickhouse);
      schemaReady = true;
    }
    for (;;) {
      if (stopped) return;
      const batch = await shipper.shipBatch();
      shippedUpTo(batch.through);
      if (batch.events === 0) break;
      shipped.inc(undefined, batch.events);
    }
    // Between batches, never during one: a deletion is sent once ClickHouse holds every event it names.
    await carryDeletions(db, clickhouse, shippedThrough, (options.now ?? Date.now)());
  }

  const running = (async () => {
    let backoffMs = firstBackoffMs;
    while (!stopped) {
      woken = false;
      try {
        await shipUntilCaughtUp();
        backoffMs = firstBackoffMs;
      } catch (error) {
        errors.inc();
        options.onError?.(error);
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
    lagEvents: () => countEventsAfter(db, shippedThrough),
    waitForShipped(seq, timeoutMs) {
      if (seq <= 0 || (knowsPosition && shippedThrough >= seq)) return Promise.resolve(true);
      if (stopped) return Promise.resolve(false);
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
        woken = true;
        interrupt?.();
      });
    },
    async close() {
      stopped = true;
      for (const waiter of waiters) waiter.resolve(false);
      waiters.clear();
      interrupt?.();
      await running;
    },
  };
}
