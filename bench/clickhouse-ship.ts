// The ClickHouse benchmark's timed part, run in a child process (bench/clickhouse.mjs bundles it): starts a
// clickhouse-server of its own (the tests' helper: loopback, temp dir, small caches), creates the tables, ships the
// data directory's projected log with the real shipper and prints a JSON summary: time, batches, and ClickHouse's
// bytes on disk (system.parts, active parts) right after shipping and after OPTIMIZE ... FINAL.
import { createClickHouse } from '../src/clickhouse/client.ts';
import { applyClickHouseSchema } from '../src/clickhouse/schema.ts';
import { createShipper } from '../src/clickhouse/shipper.ts';
import { sql } from '../src/clickhouse/sql-literal.ts';
import { readShippingBatch } from '../src/clickhouse/sqlite-source.ts';
import { openDatabase } from '../src/db/open.ts';
import { startClickHouse } from '../test/clickhouse/_server.ts';

const [databasePath, batchText] = process.argv.slice(2);
const batchSize = Number(batchText);
const server = await startClickHouse();
const db = openDatabase(databasePath!);
try {
  const clickhouse = createClickHouse({ url: server.url, database: 'bench', timeoutMs: 600_000 });
  await applyClickHouseSchema(clickhouse);
  const shipper = createShipper({ db, clickhouse, batchSize });
  // The synchronous part of one batch (the SQLite read and the rows' JSON), which the server runs on its HTTP thread.
  const syncStarted = performance.now();
  const first = readShippingBatch(db, 0, batchSize);
  const jsonBytes = first.events.reduce((sum, row) => sum + JSON.stringify(row).length, 0) + first.visits.reduce((sum, row) => sum + JSON.stringify(row).length, 0);
  const syncBatchMs = performance.now() - syncStarted;
  const started = performance.now();
  let events = 0;
  let batches = 0;
  const batchMs: number[] = [];
  for (;;) {
    const batchStarted = performance.now();
    const batch = await shipper.shipBatch();
    if (batch.events === 0) break;
    batchMs.push(performance.now() - batchStarted);
    events += batch.events;
    batches++;
    if (batches % 10 === 0) process.stderr.write(`  ${events.toLocaleString('en')} events shipped in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  }
  const elapsedMs = performance.now() - started;
  const bytes = async () =>
    Object.fromEntries(
      (await clickhouse.query<{ table: string; bytes: number; rows: number }>(
        sql`SELECT table, sum(bytes_on_disk) AS bytes, sum(rows) AS rows FROM system.parts WHERE database = 'bench' AND active AND table IN ('events', 'visits') GROUP BY table`,
      )).map((row) => [row.table, { bytes: row.bytes, rows: row.rows }]),
    );
  const afterShipping = await bytes();
  await clickhouse.exec(sql`OPTIMIZE TABLE events FINAL`);
  await clickhouse.exec(sql`OPTIMIZE TABLE visits FINAL`);
  const afterOptimize = await bytes();
  const sorted = [...batchMs].sort((a, b) => a - b);
  console.log(JSON.stringify({ syncBatchMs, syncBatchEvents: first.events.length, jsonBytes, events, batches, elapsedMs, batchP50: sorted[Math.floor(sorted.length / 2)], batchMax: sorted[sorted.length - 1], afterShipping, afterOptimize, version: await clickhouse.version() }));
} finally {
  db.close();
  await server.close();
}
