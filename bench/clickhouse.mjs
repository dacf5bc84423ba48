// npm run bench -- clickhouse [--data DIR] [--events N] [--sqlite-events N] [--backlog N] [--batch N] [--runs N]
//   [--load-until ISO] [--shards 1|2] [--skip-ship] [--skip-reads] [--skip-ingest]
// Issue 27's table on this machine, every figure beside its SQLite reference measured in the same run:
// - ClickHouse: N events (default 100,000,000) over 400 days generated inside ClickHouse (bench/clickhouse-bulk.ts,
//   INSERT … SELECT from numbers(), resumable; --load-until stops loading between parts at a time and measures what
//   is in: every part is a uniform sample of the whole period), on a server with docs/clickhouse.md's 2 GB VPS
//   settings (bench/clickhouse-server.mjs).
// - SQLite: the reports benchmark's generator with its analysis events at --sqlite-events (default 10,000,000),
//   written through the writer's commit and projected (bench/clickhouse-sqlite-data.mjs).
// - Shipping rate: the real shipper from that SQLite log (its first --backlog events, default 1,000,000; batches of
//   --batch, default 50,000) into an empty database; bytes per event from system.parts after OPTIMIZE FINAL.
// - Reads: summary, pages, sources over 30 and 365 days, a 4-step funnel's population and last-touch conversions over
//   30 days, through the read model's ClickHouse implementation and its SQLite one (median of --runs, default 5, after
//   a warm-up); what the ClickHouse read model does not answer yet is timed as the equivalent SQL, and says so.
// - Ingest p99 at 2,000 events/s on the SQLite data set, SQLite only, then with CLICKHOUSE_URL set while the server
//   ships that whole log in the background.
// --data DIR keeps both data sets there and reuses them (default: a temp dir, removed at the end).
// --shards 2: the hook for CLICKHOUSE_CLUSTER (not in this branch): see startClickHouseFor below.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { nodeBundleOptions } from '../build/bundle-options.mjs';
import { prepareSqliteData } from './clickhouse-sqlite-data.mjs';
import { startBenchClickHouse, vpsSettings } from './clickhouse-server.mjs';
import { adminToken, fixed, processCpuMs, root, runLoad, scrapeHistogram, scrapeValue, serverQuantile, startProcess, stopProcess } from './harness.mjs';
import { benchLastDayMs } from './workload.mjs';

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : fallback;
}

const loadAverage = () => loadavg().map((value) => value.toFixed(1)).join(', ');
const count = (value) => Number(value).toLocaleString('en');
const seconds = (ms) => `${fixed(ms / 1000, 0)} s`;

function directorySize(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + directorySize(join(path, name)), 0);
}

/**
 * One server, or (--shards 2) the hook for the cluster: CLICKHOUSE_CLUSTER lives on another branch; once merged,
 * start two servers with a remote_servers section naming both, pass the cluster's name to the child (its
 * createClickHouse options), and the same commands run over the Distributed tables. Until then it says so.
 */
async function startClickHouseFor(dir, shards) {
  if (shards !== 1) {
    throw new Error('--shards 2 needs CLICKHOUSE_CLUSTER (the cluster branch): after the merge, start two servers here with a remote_servers config and pass the cluster to bench/clickhouse-at-scale.ts');
  }
  return startBenchClickHouse(join(dir, 'clickhouse'));
}

export async function run(args) {
  const events = Number(option(args, '--events', 100_000_000));
  const sqliteEvents = Number(option(args, '--sqlite-events', 10_000_000));
  const backlog = Number(option(args, '--backlog', 1_000_000));
  const batchSize = Number(option(args, '--batch', 50_000));
  const runs = Number(option(args, '--runs', 5));
  const shards = Number(option(args, '--shards', 1));
  const loadUntil = option(args, '--load-until', undefined);
  const keptDir = option(args, '--data', undefined);
  const dir = keptDir ?? mkdtempSync(join(tmpdir(), 'sightline-bench-clickhouse-'));
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const child = join(root, 'dist', 'bench-clickhouse-at-scale.mjs');
  await build({ entryPoints: [join(root, 'bench', 'clickhouse-at-scale.ts')], outfile: child, ...nodeBundleOptions });
  const inChild = (command, ...rest) => {
    const output = execFileSync(process.execPath, [child, command, ...rest.map(String)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 });
    return JSON.parse(output.trim().split('\n').pop());
  };

  console.log(`ClickHouse benchmark (issue 27): ${count(events)} events in ClickHouse, ${count(sqliteEvents)} in SQLite; 2 cores; load average ${loadAverage()}; data in ${dir}`);
  let clickhouse;
  try {
    console.log('\nSQLite data set (the reports benchmark\'s generator with analysis events; writer\'s commit, then the projector):');
    const sqlite = await prepareSqliteData(dir, sqliteEvents);
    const sqliteLoad = JSON.parse(readFileSync(join(sqlite.dataDir, 'done'), 'utf8'));
    console.log(`  ${sqlite.reused ? 'reused; it took' : 'took'} ${seconds(sqliteLoad.writtenMs)} to write and ${seconds(sqliteLoad.projectedMs)} to project; ${fixed(directorySize(sqlite.dataDir) / 2 ** 30, 2)} GiB on disk`);

    clickhouse = await startClickHouseFor(dir, shards);
    const version = execFileSync('curl', ['-s', `${clickhouse.url}/`, '--data-binary', 'SELECT version()'], { encoding: 'utf8' }).trim();
    console.log(`\nClickHouse ${version}, the 2 GB VPS settings (docs/clickhouse.md): max_memory_usage ${count(vpsSettings.maxMemoryUsage)}, max_bytes_before_external_group_by ${count(vpsSettings.maxBytesBeforeExternalGroupBy)}, max_threads ${vpsSettings.maxThreads}, mark cache ${vpsSettings.markCacheBytes / 2 ** 20} MiB, uncompressed cache ${vpsSettings.uncompressedCacheBytes}, ${vpsSettings.compression} compression`);
    console.log(`Loading ${count(events)} generated events (INSERT … SELECT from numbers(), resumed where a previous run stopped; not timed against a target):`);
    const deadline = loadUntil ? Date.parse(loadUntil) : 0;
    const loaded = inChild('load', clickhouse.url, 'bench100m', events, 400, benchLastDayMs, deadline);
    console.log(`  this run: ${seconds(loaded.elapsedMs)}; ClickHouse holds ${count(loaded.events)} events and ${count(loaded.visits)} visits${loaded.complete ? '' : ` (PARTIAL: ${fixed((100 * loaded.events) / events, 0)}% of the data set, a uniform sample of the 400 days)`}; load average ${loadAverage()}`);

    if (!args.includes('--skip-ship')) {
      console.log(`\nShipping rate: the real shipper from the SQLite log (first ${count(backlog)} events, batches of ${count(batchSize)}) into an empty database:`);
      const clickhouseCpuBefore = processCpuMs(clickhouse.pid);
      const shipped = inChild('ship', clickhouse.url, 'ship_rate', join(sqlite.dataDir, 'sightline.db'), backlog, batchSize);
      // CPU time, which a shared machine stretches far less than elapsed time (it includes the OPTIMIZE at the end).
      const clickhouseCpuMs = processCpuMs(clickhouse.pid) - clickhouseCpuBefore;
      const perEvent = (parts) => (parts.events.bytes + (parts.signed_visits?.bytes ?? 0)) / shipped.events;
      console.log(`  ${count(shipped.events)} events in ${shipped.batches} batches, ${fixed(shipped.elapsedMs / 1000, 1)} s: ${fixed(shipped.events / (shipped.elapsedMs / 1000), 0)} events/s (target 100,000); the shipper's own CPU ${fixed(shipped.shipperCpuMs / 1000, 1)} s; load average ${loadAverage()}`);
      console.log(
        `  CPU: the shipper ${fixed(shipped.shipperCpuMs / 1000, 1)} s, ClickHouse ${fixed(clickhouseCpuMs / 1000, 1)} s (with the OPTIMIZE after): ${fixed(shipped.events / ((shipped.shipperCpuMs + clickhouseCpuMs) / 1000), 0)} events per CPU-second, an upper bound of ${fixed((2 * shipped.events) / ((shipped.shipperCpuMs + clickhouseCpuMs) / 1000), 0)} events/s on 2 free cores (batches ship one at a time)`,
      );
      console.log(`  one batch's SQLite read and JSON (on the shipping thread in the server): ${fixed(shipped.syncBatchMs, 0)} ms for ${count(shipped.syncBatchEvents)} events (${fixed(shipped.jsonBytes / 2 ** 20, 1)} MiB)`);
      for (const [label, parts] of [['right after shipping', shipped.afterShipping], ['after OPTIMIZE FINAL', shipped.afterOptimize]]) {
        console.log(`  bytes on disk ${label}: ${fixed(perEvent(parts), 1)} per event (events ${fixed(parts.events.bytes / shipped.events, 1)}, visits ${fixed((parts.signed_visits?.bytes ?? 0) / shipped.events, 1)}); target at most 80, raw kept`);
    }
    const bulkBytes = execFileSync('curl', ['-s', `${clickhouse.url}/`, '--data-binary', "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'bench100m' AND active AND table IN ('events', 'signed_visits')"], { encoding: 'utf8' }).trim();
    console.log(`  the generated data set: ${fixed(Number(bulkBytes) / loaded.events, 1)} bytes per event (${fixed(Number(bulkBytes) / 2 ** 30, 2)} GiB, parts as merged so far)`);

    }

    if (!args.includes('--skip-reads')) {
      console.log(`\nReads through the read model, median of ${runs} after a warm-up (fewer when they would take over BENCH_QUESTION_BUDGET_MS, default 60 s: the count follows the range), ms (ClickHouse at ${count(loaded.events)} events, SQLite at ${count(sqliteEvents)}):`);
      const reads = inChild('reads', clickhouse.url, 'bench100m', join(sqlite.dataDir, 'sightline.db'), runs, clickhouse.pid, benchLastDayMs);
      console.log(`  ${'question'.padEnd(32)} ${'ClickHouse'.padStart(10)}  ${'(min-max, runs)'.padEnd(18)} ${'how'.padEnd(11)} ${'SQLite'.padStart(10)}  target`);
      for (const row of reads.rows) {
        const ch = row.clickhouse.error ? `error: ${row.clickhouse.error}` : `${fixed(row.clickhouse.median, 0).padStart(10)}  ${`(${fixed(row.clickhouse.min, 0)}-${fixed(row.clickhouse.max, 0)}, ${row.clickhouse.runs})`.padEnd(18)}`;
        const lite = row.sqlite.error ? `error: ${row.sqlite.error}` : `${fixed(row.sqlite.median, 0)} (${row.sqlite.runs})`.padStart(10);
        console.log(`  ${row.name.padEnd(32)} ${ch} ${row.how.padEnd(11)} ${lite}  < 1000${row.clickhouse.median < 1000 ? '' : '  MISSED'}`);
    }
    const memory = clickhouse.memory();
    console.log(`  ClickHouse resident memory: peak ${fixed(reads.peakRssMiB, 0)} MiB while the questions ran (sampled every 50 ms), ${fixed(memory.rssMiB, 0)} MiB now; load average ${loadAverage()}`);

    }

    if (!args.includes('--skip-ingest')) {
      console.log('\nIngest on the SQLite data set, 2,000 events/s open loop for 10 s (server-side p99, ms):');
      const ingest = async (env, label) => {
        const server = await startProcess(join(root, 'bin', 'sightline'), ['serve', '--port', '0'], { DATA_DIR: sqlite.dataDir, ADMIN_TOKEN: adminToken, RATE_LIMIT_SITE: '10000000', RATE_LIMIT_IP: '10000000', ...env });
        try {
          // A few seconds for the shipper to be under way (it starts with the whole log as its backlog).
          await new Promise((resolve) => setTimeout(resolve, 3000));
          const before = await scrapeHistogram(server.url);
          const shippedBefore = (await scrapeValue(server.url, 'sightline_clickhouse_shipped_total')) ?? 0;
          const load = runLoad({ url: server.url, siteId: 'bench', mode: 'open', rate: 2000, connections: 50, durationMs: 10_000 });
          const after = await scrapeHistogram(server.url);
          const shippedDuring = ((await scrapeValue(server.url, 'sightline_clickhouse_shipped_total')) ?? 0) - shippedBefore;
          console.log(
            `  ${label.padEnd(44)} p50 ${fixed(serverQuantile(before, after, 0.5), 3)}  p99 ${fixed(serverQuantile(before, after, 0.99), 3)}  (client p99 ${fixed(load.p99)}; statuses ${JSON.stringify(load.statuses)})${env.CLICKHOUSE_URL ? `; ${count(shippedDuring)} events shipped meanwhile` : ''}`,
          );
        } finally {
          await stopProcess(server.child);
        }
      };
      await ingest({}, 'SQLite only');
      execFileSync('curl', ['-s', `${clickhouse.url}/`, '--data-binary', 'DROP DATABASE IF EXISTS ingest_ship']);
      await ingest({ CLICKHOUSE_URL: clickhouse.url, CLICKHOUSE_DATABASE: 'ingest_ship' }, 'CLICKHOUSE_URL set, shipping the log meanwhile');
      console.log(`  load average ${loadAverage()}`);
    }
    for (const database of ['ship_rate', 'ingest_ship']) execFileSync('curl', ['-s', `${clickhouse.url}/`, '--data-binary', `DROP DATABASE IF EXISTS ${database}`]);
    console.log(`\nData kept in ${keptDir ?? '(removed)'}: ClickHouse ${fixed(directorySize(join(dir, 'clickhouse')) / 2 ** 30, 2)} GiB, SQLite ${fixed(directorySize(sqlite.dataDir) / 2 ** 30, 2)} GiB`);
  } finally {
    await clickhouse?.close();
    if (keptDir === undefined) rmSync(dir, { recursive: true, force: true });
  }
}
