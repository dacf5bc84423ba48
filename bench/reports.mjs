// npm run bench -- reports [--events N] [--data DIR]: 10 million events for one site over 400 days (5,000 paths with a
// skewed distribution, 300 referrers, 50 countries, 200,000 visitors) written through the ingest writer's commit,
// then projected by the projector (as its thread does with a backlog), then the real server times summary-v2,
// pages-v2 (top 10) and sources-v2 over 30 and 365 days (median of 20 warm runs each), a 4-step funnels-v2 over 30
// days, journeys-v2 (4 steps from the entry page, and from the top page) over 30 days and retention-v2 over 12 weeks
// (median of 5 each), and prints the database size
// per million events and the server-side ingest p99 at 2,000 events/s on that database. --data DIR keeps the
// database there and, when it already holds one, skips the writing (to time reads again after a change).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminToken, call, fixed, median, root, runLoad, scrapeHistogram, scrapeValue, serverQuantile, startProcess, stopProcess } from './harness.mjs';
import { benchLastDayMs, reportsWorkload, runWorkload } from './workload.mjs';

const siteId = 'bench';
const dayMs = 86_400_000;
const lastDayMs = benchLastDayMs;
const runs = 20;

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : fallback;
}

/** Reads are timed once the projector has caught up (its lag gauge reads 0). */
async function waitForProjector(url) {
  for (;;) {
    if ((await scrapeValue(url, 'sightline_projector_lag_events')) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function timeReport(url, path, count = runs) {
  const times = [];
  for (let run = 0; run < count + 3; run++) {
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

/** A POST of a JSON body, timed like the reports (a few warm-up runs first), `count` timed runs. */
async function timePost(url, path, body, count) {
  const times = [];
  for (let run = 0; run < count + 2; run++) {
    const started = performance.now();
    const response = await fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
    if (run >= 2) times.push(elapsed);
  }
  return { median: median(times), min: Math.min(...times), max: Math.max(...times) };
}

export async function run(args) {
  const events = Number(option(args, '--events', 10_000_000));
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const keptDir = option(args, '--data', undefined);
  const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'sightline-bench-reports-'));
  const reuse = keptDir !== undefined && existsSync(join(keptDir, 'sightline.db'));
  const serverEnv = { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, RATE_LIMIT_SITE: '10000000', RATE_LIMIT_IP: '10000000' };
  const serve = () => startProcess(join(root, 'bin', 'sightline'), ['serve', '--port', '0'], serverEnv);
  try {
    let server;
    if (!reuse) {
      server = await serve();
      await call(`${server.url}/workspaces`, 'POST', { name: 'Bench', slug: 'bench' });
      await call(`${server.url}/workspaces/bench/sites`, 'POST', { id: siteId, name: 'Bench' });
      await stopProcess(server.child);
    }

    const workload = reportsWorkload(join(dataDir, 'sightline.db'), siteId, events);
    if (!existsSync(workload.databasePath)) throw new Error(`no database at ${workload.databasePath}`);
    console.log(`Reports benchmark: ${events.toLocaleString('en')} events, ${workload.days} days, ${workload.paths} paths, ${workload.referrers} referrers, ${workload.countries} countries, ${workload.visitors.toLocaleString('en')} visitors; 2 cores.`);
    if (reuse) console.log(`Reusing the database in ${dataDir}.`);
    else {
      console.log('Writing through the ingest writer\'s commit (event rows only), commits of 2,000 events:');
      const written = await runWorkload('write', workload);
      console.log(`  ${fixed(written.elapsedMs / 1000, 0)} s (${fixed(events / (written.elapsedMs / 1000), 0)} events/s incl. generation); ${written.commits} commits p50 ${fixed(written.commitP50)} ms p99 ${fixed(written.commitP99)} ms`);
      console.log('Projecting them (batches of 5,000 events, as the projector thread does with a backlog):');
      const projected = await runWorkload('project', { databasePath: workload.databasePath, batchEvents: 5000 });
      console.log(`  ${fixed(projected.elapsedMs / 1000, 0)} s (${fixed(projected.events / (projected.elapsedMs / 1000), 0)} events/s); ${projected.batches} batches p50 ${fixed(projected.batchP50)} ms p99 ${fixed(projected.batchP99)} ms`);
    }

    server = await serve();
    await waitForProjector(server.url);
    const files = ['sightline.db', 'sightline.db-wal', 'events.db', 'events.db-wal'].map((name) => join(dataDir, name)).filter(existsSync);
    const sizeBytes = files.reduce((sum, path) => sum + statSync(path).size, 0);
    console.log(`\nDatabase: ${fixed(sizeBytes / 2 ** 20, 0)} MiB in all (both files and WALs), ${fixed(sizeBytes / events, 0)} bytes per event (raw JSON kept verbatim)`);

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

    // Funnels read the event log, not the rollups (docs/analysis.md): a 4-step funnel over the last 30 days.
    const funnelBody = {
      site_id: siteId,
      from: dateText(lastDayMs - 29 * dayMs),
      to: dateText(lastDayMs),
      steps: [{ type: 'pageview' }, { type: 'pageview' }, { type: 'pageview' }, { type: 'purchase' }],
      window: { value: 1, unit: 'days' },
    };
    const funnel = await timePost(server.url, '/v1/workspaces/bench/analysis/funnels-v2', funnelBody, 5);
    console.log(`   30 days  funnels-v2 4 steps  ${fixed(funnel.median).padStart(8)}  (${fixed(funnel.min)}-${fixed(funnel.max)})  target < 1000${funnel.median < 1000 ? '' : '  MISSED'}`);

    // Journeys cut the range's visits out of the event log, retention unions the daily visitor sets (docs/reports.md).
    const last30 = `from=${dateText(lastDayMs - 29 * dayMs)}&to=${dateText(lastDayMs)}`;
    const weeks12 = `from=${dateText(lastDayMs - 83 * dayMs)}&to=${dateText(lastDayMs)}`;
    for (const [name, path] of [
      ['journeys-v2 4 steps', `/v1/sites/${siteId}/reports/journeys-v2?${last30}&steps=4`],
      ['journeys-v2 from /', `/v1/sites/${siteId}/reports/journeys-v2?${last30}&steps=4&start_path=%2F`],
      ['page-flow-v2 /', `/v1/sites/${siteId}/reports/page-flow-v2?${last30}&path=%2F`],
    ]) {
      const timing = await timeReport(server.url, path, 5);
      console.log(`   30 days  ${name.padEnd(19)} ${fixed(timing.median).padStart(8)}  (${fixed(timing.min)}-${fixed(timing.max)})  target < 1000${timing.median < 1000 ? '' : '  MISSED'}`);
    }
    const retention = await timeReport(server.url, `/v1/sites/${siteId}/reports/retention-v2?${weeks12}&period=week`, 5);
    console.log(`  12 weeks  retention-v2 weekly  ${fixed(retention.median).padStart(8)}  (${fixed(retention.min)}-${fixed(retention.max)})  target < 1000${retention.median < 1000 ? '' : '  MISSED'}`);

    const before = await scrapeHistogram(server.url);
    const load = runLoad({ url: server.url, siteId, mode: 'open', rate: 2000, connections: 50, durationMs: 10_000 });
    const after = await scrapeHistogram(server.url);
    console.log(
      `\nIngest into this database: 2000 ev/s open loop for 10 s: server p50 ${fixed(serverQuantile(before, after, 0.5), 3)} ms p99 ${fixed(serverQuantile(before, after, 0.99), 3)} ms (target < 2); client p99 ${fixed(load.p99)} ms; statuses ${JSON.stringify(load.statuses)}`,
    );
    await stopProcess(server.child);
  } finally {
    if (keptDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}
