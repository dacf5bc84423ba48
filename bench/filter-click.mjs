// npm run bench -- dashboard [--events N] [--days D --visitors V] [--data DIR]: what a filter click on the dashboard
// costs on a large site. `--events 1550000 --days 62 --visitors 200000` is the 10M set's last 62 days at its density
// (25,000 events a day, 200,000 visitors): a 30-day dashboard and its comparison read there what they read on the
// whole set, written and projected in minutes instead of the whole set's 17.
// The reports benchmark's site (10 million events over 400 days by default; reports.mjs describes it and --data
// reuses its database) is served by the real server; then the dashboard's requests after a click on a Sources row
// (summary-v2 with its comparison, pages, grouped sources, campaigns, goals, four breakdowns and the map's countries
// over the last 30 days, filtered by the clicked source) go out together, as the UI sends them, and the time until the
// last answer is printed: median of 10 warm runs, beside the same batch without a filter and one summary-v2 alone (the
// floor of one request on this machine now). Figures, never a pass/fail; the load average is printed with them.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminToken, call, fixed, median, root, scrapeValue, startProcess, stopProcess } from './harness.mjs';
import { benchLastDayMs, reportsWorkload, runWorkload } from './workload.mjs';

const siteId = 'bench';
const dayMs = 86_400_000;
const runs = 10;
const dateText = (ms) => new Date(ms).toISOString().slice(0, 10);

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : fallback;
}

async function get(url, path) {
  const response = await fetch(url + path, { headers: { authorization: `Bearer ${adminToken}` } });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** The dashboard's reports for one view, as web/admin/dashboard.js asks for them. */
function dashboardPaths(range, filters) {
  const query = (extra) => new URLSearchParams({ ...range, ...filters, ...extra }).toString();
  const report = (name, extra = {}) => `/v1/sites/${siteId}/reports/${name}?${query(extra)}`;
  return [
    report('summary-v2', { compare: 'previous' }),
    report('pages-v2', { limit: '10' }),
    report('sources-v2', { limit: '10', grouped: 'true' }),
    report('campaigns-v2', { limit: '10' }),
    report('goals-v2'),
    ...['country', 'device', 'browser', 'os'].map((by) => report('breakdown-v2', { by, limit: '10' })),
    report('breakdown-v2', { by: 'country', limit: '200' }),
  ];
}

/** Median (min-max) ms until every answer of the batch, sent together, has arrived. */
async function timeBatch(url, paths) {
  const times = [];
  for (let run = 0; run < runs + 2; run++) {
    const started = performance.now();
    await Promise.all(paths.map((path) => get(url, path)));
    if (run >= 2) times.push(performance.now() - started);
  }
  return `${fixed(median(times), 0)} ms (${fixed(Math.min(...times), 0)}-${fixed(Math.max(...times), 0)})`;
}

export async function run(args) {
  const events = Number(option(args, '--events', 10_000_000));
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const keptDir = option(args, '--data', undefined);
  const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'sightline-bench-dashboard-'));
  const reuse = keptDir !== undefined && existsSync(join(keptDir, 'sightline.db'));
  const serverEnv = { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, RATE_LIMIT_SITE: '10000000', RATE_LIMIT_IP: '10000000' };
  const serve = () => startProcess(join(root, 'bin', 'sightline'), ['serve', '--port', '0'], serverEnv);
  try {
    if (!reuse) {
      const first = await serve();
      await call(`${first.url}/workspaces`, 'POST', { name: 'Bench', slug: 'bench' });
      await call(`${first.url}/workspaces/bench/sites`, 'POST', { id: siteId, name: 'Bench' });
      await stopProcess(first.child);
      const days = option(args, '--days', undefined);
      const visitors = option(args, '--visitors', undefined);
      const workload = { ...reportsWorkload(join(dataDir, 'sightline.db'), siteId, events), ...(days && { days: Number(days) }), ...(visitors && { visitors: Number(visitors) }) };
      const written = await runWorkload('write', workload);
      const projected = await runWorkload('project', { databasePath: workload.databasePath, batchEvents: 5000 });
      console.log(`Dashboard filter click: ${events.toLocaleString('en')} events written in ${fixed(written.elapsedMs / 1000, 0)} s, projected in ${fixed(projected.elapsedMs / 1000, 0)} s.`);
    } else console.log(`Dashboard filter click: reusing the database in ${dataDir}.`);
    const server = await serve();
    while ((await scrapeValue(server.url, 'sightline_projector_lag_events')) !== 0) await new Promise((resolve) => setTimeout(resolve, 250));
    const range = { from: dateText(benchLastDayMs - 29 * dayMs), to: dateText(benchLastDayMs) };
    // The source a user clicks: the top row of the grouped Sources panel.
    const top = (await get(server.url, `/v1/sites/${siteId}/reports/sources-v2?${new URLSearchParams({ ...range, grouped: 'true', limit: '1' })}`)).data.rows[0].source;
    const paths = dashboardPaths(range, { source: top });
    console.log(`load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}; ${events.toLocaleString('en')} events, last 30 days, ${paths.length} requests in parallel:`);
    console.log(`  one summary-v2 alone (floor)           ${await timeBatch(server.url, [paths[0]])}`);
    console.log(`  the dashboard unfiltered               ${await timeBatch(server.url, dashboardPaths(range, {}))}`);
    console.log(`  the dashboard after a click on ${top.padEnd(8)} ${await timeBatch(server.url, paths)}`);
    await stopProcess(server.child);
  } finally {
    if (keptDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}
