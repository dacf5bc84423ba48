// The ClickHouse shipping thread's entry (bundled to dist/clickhouse-shipping-thread.mjs): its own connection to
// sightline.db (the event log attached; it reads the log and visits, and writes only the pending deletions' marks),
// the shipping loop of shipping-loop.ts, and each batch's position reported to the HTTP thread, which keeps the
// metrics and the reads' waits. A batch's SQLite read and the JSON of its rows run here, never on the HTTP thread.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.ts';
import { createClickHouse } from './client.ts';
import { runShipping, type ShippingCommand, type ShippingReport, type ShippingThreadData } from './shipping-loop.ts';

const data = workerData as ShippingThreadData;
try {
  // The lowest priority, for this thread only (setpriority with a thread id, Linux), as the projector thread's: on
  // 2 cores its JSON work took CPU from acknowledgements (ingest p99 53 → 146 ms in npm run bench -- clickhouse).
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 19);
} catch {
  // not Linux, or not permitted: run at the process's priority
}
// A small page cache: the shipper reads the log in order, once.
const db = openDatabase(data.databasePath, { cacheMiB: 8, logCacheMiB: 8, nativeBinding: data.nativeBinding });
const report = (message: ShippingReport) => parentPort!.postMessage(message);
const run = runShipping(
  {
    db,
    clickhouse: createClickHouse(data.connection),
    batchSize: data.batchSize ?? 20_000,
    intervalMs: data.intervalMs,
    backoffMs: data.backoffMs,
    maxBackoffMs: data.maxBackoffMs,
    leaseMs: data.leaseMs,
    leaseHolder: data.leaseHolder,
  },
  {
    shipped: (through, events) => report({ type: 'shipped', through, events }),
    failed: (error) => report({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
  },
);

parentPort!.on('message', (command: ShippingCommand) => {
  if (command.type === 'wake') return run.wake();
  void run.close().then(() => {
    db.close();
    parentPort!.close();
  });
});
report({ type: 'ready' });
