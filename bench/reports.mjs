// npm run bench -- reports [--events N] [--data DIR]: 10 million events for one site over 400 days (5,000 paths with a
// skewed distribution, 300 referrers, 50 countries, 200,000 visitors) written through the real write path
// (storeGroup with every write listener, as the writer thread runs it, idle folding included), then the real
// server times summary-v2, pages-v2 (top 10) and sources-v2 over 30 and 365 days (median of 20 warm runs each),
// and prints the database size per million events and the server-side ingest p99 at 2,000 events/s on that
// database (rollups on). --data DIR keeps the database there and, when it already holds one, skips the writing
// (to time reads again after a change).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { build } from 'esbuild';
import { nodeBundleOptions } from '../build/bundle-options.mjs';
import { adminToken, call, fixed, median, root, runLoad, scrapeHistogram, serverQuantile, startProcess, stopProcess } from './harness.mjs';

const siteId = 'bench';
const dayMs = 86_400_000;
const lastDayMs = Date.UTC(2026, 9, 31);
const runs = 20;

/**
 * Waits until the writer has moved and folded what an earlier run left staged (the ingest phase stops mid-upkeep):
 * reads are timed on a settled database, as they are for a site whose writer has caught up.
 */
async function waitForUpkeep(databasePath) {
  const db = new Database(databasePath, { readonly: true });
  const started = performance.now();
  try {
    const left = () => ['report_staging_log', 'report_pending_counters', 'report_pending_visitors'].reduce((sum, table) => sum + db.prepare(`SELECT count(*) AS n FROM ${table}`).get().n, 0);
    let rows = left();
    const before = rows;
    while (rows > 0 && performance.now() - started < 120_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      rows = left();
    }
    return { before, after: rows, seconds: (performance.now() - started) / 1000 };
  } finally {
    db.close();
  }
}

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : fallback;
}

/** Bundled into dist/ so its imports of better-sqlite3 and friends resolve to node_modules. */
async function bundleWorkload() {
  const outfile = join(root, 'dist', 'bench-reports-workload.mjs');
  await build({
    stdin: {
      contents: `import { writeWorkload } from './bench/reports-workload.ts';
        const options = JSON.parse(process.argv[2]);
        let next = 0;
        const result = writeWorkload({ ...options, onProgress(written, elapsedMs) {
          if (written < next) return;
          next += 1_000_000;
          process.stderr.write(\`  \${(written / 1e6).toFixed(1)}M events in \${(elapsedMs / 1000).toFixed(0)} s\\n\`);
        } });
        const sorted = (values) => [...values].sort((a, b) => a - b);
        const commits = sorted(result.commitMs);
        const folds = sorted(result.foldMs.filter((ms) => ms > 0.05));
        const at = (values, q) => values.length ? values[Math.min(values.length - 1, Math.floor(q * values.length))] : null;
        console.log(JSON.stringify({ elapsedMs: result.elapsedMs, commits: commits.length, commitP50: at(commits, 0.5), commitP99: at(commits, 0.99),
          folds: folds.length, foldP50: at(folds, 0.5), foldP99: at(folds, 0.99), foldMax: at(folds, 1) }));`,
      resolveDir: root,
      loader: 'ts',
    },
    outfile,
    ...nodeBundleOptions,
  });
  return outfile;
}

async function timeReport(url, path) {
  const times = [];
  for (let run = 0; run < runs + 3; run++) {
    const started = performance.now();
    const response = await fetch(url + path, { headers: { authorization: `Bearer ${adminToken}` } });
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
    if (run >= 3) times.push(elapsed); // the first three warm the caches
  }
  return { median: median(times), min: Math.min(...times), max: Math.max(...times) };
}

const dateText = (ms) => new Date(ms).toISOString().slice(0, 10);

export async function run(args) {
  const events = Number(option(args, '--events', 10_000_000));
  const scale = events / 10_000_000;
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const keptDir = option(args, '--data', undefined);
  const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'sightline-bench-reports-'));
  const reuse = keptDir !== undefined && existsSync(join(keptDir, 'sightline.db'));
  const serverEnv = { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, RATE_LIMIT_SITE: '10000000', RATE_LIMIT_IP: '10000000' };
  const serve = () => startProcess(process.execPath, [join(root, 'bin', 'sightline'), 'serve', '--port', '0'], serverEnv);
  try {
    let server;
    if (!reuse) {
      server = await serve();
      await call(`${server.url}/workspaces`, 'POST', { name: 'Bench', slug: 'bench' });
      await call(`${server.url}/workspaces/bench/sites`, 'POST', { id: siteId, name: 'Bench' });
      await stopProcess(server.child);
    }

    const workload = {
      databasePath: join(dataDir, 'sightline.db'),
      siteId,
      events,
      days: 400,
      paths: 5000,
      referrers: 300,
      countries: 50,
      visitors: Math.max(1000, Math.round(200_000 * scale)),
      lastDayMs,
    };
    if (!existsSync(workload.databasePath)) throw new Error(`no database at ${workload.databasePath}`);
    console.log(`Reports benchmark: ${events.toLocaleString('en')} events, ${workload.days} days, ${workload.paths} paths, ${workload.referrers} referrers, ${workload.countries} countries, ${workload.visitors.toLocaleString('en')} visitors; 2 cores.`);
    if (reuse) console.log(`Reusing the database in ${dataDir}.`);
    else {
      console.log('Writing through storeGroup (every write listener, idle folding as on the writer thread), commits of 2,000 events:');
      const script = await bundleWorkload();
      const output = execFileSync(process.execPath, [script, JSON.stringify(workload)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
      const written = JSON.parse(output.trim().split('\n').pop());
      console.log(
        `  ${fixed(written.elapsedMs / 1000, 0)} s (${fixed(events / (written.elapsedMs / 1000), 0)} events/s incl. generation); ${written.commits} commits p50 ${fixed(written.commitP50)} ms p99 ${fixed(written.commitP99)} ms; ${written.folds} fold slices p50 ${fixed(written.foldP50)} ms p99 ${fixed(written.foldP99)} ms max ${fixed(written.foldMax)} ms`,
      );
    }

    server = await serve();
    const upkeep = await waitForUpkeep(workload.databasePath);
    if (upkeep.before > 0) console.log(`Waited ${fixed(upkeep.seconds, 1)} s for the writer to fold ${upkeep.before.toLocaleString('en')} staged rows left by an earlier run (${upkeep.after} left).`);
    const sizeBytes = ['', '-wal'].map((suffix) => join(dataDir, `sightline.db${suffix}`)).filter(existsSync).reduce((sum, path) => sum + statSync(path).size, 0);
    console.log(`\nDatabase: ${fixed(sizeBytes / 2 ** 20, 0)} MiB in all, ${fixed(sizeBytes / 2 ** 20 / (events / 1e6), 1)} MiB per million events (raw JSON kept per event)`);

    console.log(`\nReports over HTTP (admin token), median of ${runs} warm runs (min-max), ms:`);
    for (const days of [30, 365]) {
      const range = `from=${dateText(lastDayMs - (days - 1) * dayMs)}&to=${dateText(lastDayMs)}`;
      for (const [name, path, target] of [
        ['summary-v2', `/v1/sites/${siteId}/reports/summary-v2?${range}`],
        ['pages-v2 top 10', `/v1/sites/${siteId}/reports/pages-v2?${range}&limit=10`],
        ['sources-v2', `/v1/sites/${siteId}/reports/sources-v2?${range}`],
      ]) {
        const timing = await timeReport(server.url, path);
        const limit = days === 30 ? 25 : 150;
        console.log(`  ${String(days).padStart(3)} days  ${name.padEnd(16)} ${fixed(timing.median).padStart(8)}  (${fixed(timing.min)}-${fixed(timing.max)})  target < ${limit}${timing.median < limit ? '' : '  MISSED'}`);
      }
    }

    const before = await scrapeHistogram(server.url);
    const load = runLoad({ url: server.url, siteId, mode: 'open', rate: 2000, connections: 50, durationMs: 10_000 });
    const after = await scrapeHistogram(server.url);
    console.log(
      `\nIngest with rollups on, into this database: 2000 ev/s open loop for 10 s: server p50 ${fixed(serverQuantile(before, after, 0.5), 3)} ms p99 ${fixed(serverQuantile(before, after, 0.99), 3)} ms (target < 5); client p99 ${fixed(load.p99)} ms; statuses ${JSON.stringify(load.statuses)}`,
    );
    await stopProcess(server.child);
  } finally {
    if (keptDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}
