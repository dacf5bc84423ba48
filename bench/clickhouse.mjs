// npm run bench -- clickhouse [--events N] [--batch N]: the ship rate. N events (default 1,000,000; the reports
// benchmark's data set scaled to N) are loaded as bench/reports.mjs loads them, through the ingest writer's commit and
// the projector (not HTTP), then only the shipping is timed: the real shipper (src/clickhouse/shipper.ts, batches of
// 50,000 by default) to a clickhouse-server this benchmark starts itself. Prints events/s and ClickHouse's bytes on
// disk per event (system.parts), right after shipping and after OPTIMIZE ... FINAL.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { nodeBundleOptions } from '../build/bundle-options.mjs';
import { call, fixed, root, startProcess, stopProcess, adminToken } from './harness.mjs';
import { reportsWorkload, runWorkload } from './workload.mjs';

const siteId = 'bench';

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : fallback;
}

export async function run(args) {
  const events = Number(option(args, '--events', 1_000_000));
  const batchSize = Number(option(args, '--batch', 50_000));
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const shipFile = join(root, 'dist', 'bench-clickhouse-ship.mjs');
  await build({ entryPoints: [join(root, 'bench', 'clickhouse-ship.ts')], outfile: shipFile, ...nodeBundleOptions });
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-bench-clickhouse-'));
  try {
    const server = await startProcess(join(root, 'bin', 'sightline'), ['serve', '--port', '0'], { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken });
    await call(`${server.url}/workspaces`, 'POST', { name: 'Bench', slug: 'bench' });
    await call(`${server.url}/workspaces/bench/sites`, 'POST', { id: siteId, name: 'Bench' });
    await stopProcess(server.child);

    const workload = reportsWorkload(join(dataDir, 'sightline.db'), siteId, events);
    console.log(`ClickHouse ship benchmark: ${events.toLocaleString('en')} events (${workload.days} days, ${workload.visitors.toLocaleString('en')} visitors), batches of ${batchSize.toLocaleString('en')}; 2 cores.`);
    console.log('Loading through the ingest writer\'s commit, then the projector (not timed):');
    const written = await runWorkload('write', workload);
    const projected = await runWorkload('project', { databasePath: workload.databasePath, batchEvents: 5000 });
    console.log(`  written in ${fixed(written.elapsedMs / 1000, 0)} s, projected in ${fixed(projected.elapsedMs / 1000, 0)} s`);

    console.log('Shipping to a clickhouse-server started for the benchmark (timed):');
    const output = execFileSync(process.execPath, [shipFile, workload.databasePath, String(batchSize)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
    const result = JSON.parse(output.trim().split('\n').pop());
    const perEvent = (parts) => (parts.events.bytes + (parts.visits?.bytes ?? 0)) / result.events;
    console.log(`  ClickHouse ${result.version}: ${result.events.toLocaleString('en')} events in ${result.batches} batches, ${fixed(result.elapsedMs / 1000, 1)} s: ${fixed(result.events / (result.elapsedMs / 1000), 0)} events/s (batch p50 ${fixed(result.batchP50, 0)} ms, max ${fixed(result.batchMax, 0)} ms)`);
    console.log(`  the synchronous part of one batch of ${result.syncBatchEvents.toLocaleString('en')} (SQLite read and JSON of its rows, ${fixed(result.jsonBytes / 2 ** 20, 1)} MiB): ${fixed(result.syncBatchMs, 0)} ms`);
    for (const [label, parts] of [['right after shipping', result.afterShipping], ['after OPTIMIZE FINAL', result.afterOptimize]]) {
      console.log(
        `  bytes on disk ${label}: ${fixed(perEvent(parts), 1)} per event (events ${fixed(parts.events.bytes / result.events, 1)}, visits ${fixed((parts.visits?.bytes ?? 0) / result.events, 1)}; ${parts.visits?.rows ?? 0} visit rows)`,
      );
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
