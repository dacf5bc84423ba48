// npm run bench -- ingest: the real server (tracking plan loaded, whole pipeline on) against a bare node:http
// server answering 202, both loaded from separate processes. Prints saturated throughput and the ratio, open-loop
// latency at fixed rates (client p50/p99/p999 and server-side p99 from /metrics), 100-event batch throughput, RSS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchSiteId, call, fixed, median, root, rssMiB, runLoad, saturate, scrapeHistogram, serverQuantile, startBenchServer, startProcess, stopProcess } from './harness.mjs';

export async function run(args) {
  const quick = args.includes('--quick');
  const seconds = quick ? 3 : 10;
  const rounds = quick ? 1 : 3;
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-bench-'));
  const server = await startBenchServer(root, dataDir);
  const bare = await startProcess(process.execPath, [join(root, 'bench', 'bare-server.mjs')], {});
  try {
    console.log(`Ingest benchmark: ${rounds} round(s) of ${seconds} s per phase; 2 cores shared by server and load generator.`);
    // Warm up both (JIT, SQLite cache).
    saturate(server.url, 2);
    saturate(bare.url, 2);

    const full = [];
    const baseline = [];
    for (let round = 0; round < rounds; round++) {
      full.push(saturate(server.url, seconds, server.child.pid));
      baseline.push(saturate(bare.url, seconds, bare.child.pid));
    }
    const fullRps = median(full.map((r) => r.requestsPerSecond));
    const bareRps = median(baseline.map((r) => r.requestsPerSecond));
    console.log(`\nSaturated, single-event POSTs over 50 connections (${full[0].tool}), median of ${rounds}:`);
    const cores = (runs) => `server ${fixed(median(runs.map((r) => r.serverCores)))} cores, load generator ${fixed(median(runs.map((r) => r.loadCores)))}`;
    console.log(`  full pipeline : ${fixed(fullRps, 0)} req/s (${cores(full)}; non-2xx: ${full.map((r) => r.non2xx).join(', ')})`);
    console.log(`  bare node:http: ${fixed(bareRps, 0)} req/s (${cores(baseline)})`);
    console.log(`  ratio         : ${fixed((100 * fullRps) / bareRps, 1)} % of bare (target >= 40 %)`);

    console.log('\nOpen loop, single-event POSTs at a fixed rate, latency from scheduled send time (ms):');
    for (const rate of [2000, 5000]) {
      const before = await scrapeHistogram(server.url);
      const result = runLoad({ url: server.url, siteId: benchSiteId, mode: 'open', rate, connections: 50, durationMs: seconds * 1000 });
      const after = await scrapeHistogram(server.url);
      console.log(
        `  ${rate} ev/s: client p50 ${fixed(result.p50)}  p99 ${fixed(result.p99)}  p999 ${fixed(result.p999)}  | server p50 ${fixed(serverQuantile(before, after, 0.5), 3)}  p99 ${fixed(serverQuantile(before, after, 0.99), 3)}  (target p99 < 5)  statuses ${JSON.stringify(result.statuses)}`,
      );
    }

    const batches = runLoad({ url: server.url, siteId: benchSiteId, mode: 'closed', connections: 8, durationMs: seconds * 1000, batch: 100 });
    console.log(`\n100-event batches over 8 connections: ${fixed(batches.eventsPerSecond, 0)} events/s (${fixed(batches.requestsPerSecond, 0)} req/s) statuses ${JSON.stringify(batches.statuses)}`);
    const stored = (await call(`${server.url}/metrics`)).match(/sightline_ingest_events_total\{outcome="accepted"\} (\d+)/)?.[1];
    console.log(`\nServer RSS after the run: ${fixed(rssMiB(server.child.pid), 1)} MiB; events stored: ${stored}`);
  } finally {
    await stopProcess(server.child);
    await stopProcess(bare.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
