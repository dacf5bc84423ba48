// npm run bench -- dashboard [--events N] [--days D --visitors V] [--data DIR] [--runs R] [--batched-only] [--goals]
// [--server-cpu-prof DIR] [--only TEXT]: what a filter
// click on the dashboard costs on a large site. `--events 1550000 --days 62 --visitors 200000` is the 10M set's last 62 days at its
// density (25,000 events a day, 200,000 visitors): a 30-day dashboard and its comparison read there what they read on
// the whole set, written and projected in minutes instead of the whole set's 17 or more.
// The reports benchmark's site (10 million events over 400 days by default; reports.mjs describes it and --data
// reuses its database) is served by the real server; then the dashboard's reports after a click on a Sources row
// (summary-v2 with its comparison, pages, grouped sources, campaigns, goals, four breakdowns and the map's countries
// over the last 30 days, filtered by the clicked source) are asked two ways: as ten requests sent together (what the UI
// sent before dashboard-v2) and as the one dashboard-v2 request the UI sends now; then the same after a second click
// (a device too: two filters, which only raw events answer). Printed: the time until the last answer, median of R
// (default 10) warm runs (min-max), and the server's CPU time per run (user + system, from /proc: far less noisy than
// wall time when the machine is shared), beside one summary-v2 alone (the floor of one request on this machine now)
// and the load average before and after. Figures, never a pass/fail.
// --goals gives the site two goals first (a purchase event, a /pricing pageview; kept in the data dir): the Goals
// panel then counts conversions from raw events, as on a site that has goals. --server-cpu-prof DIR writes the
// server's CPU profile there (node --cpu-prof) when it stops.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminToken, call, fixed, median, root, scrapeValue, startProcess, stopProcess } from './harness.mjs';
import { benchLastDayMs, reportsWorkload, runWorkload } from './workload.mjs';

const siteId = 'bench';
const dayMs = 86_400_000;
let runs = 10;
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

/** The one request the dashboard sends instead (dashboard-v2: every panel, the rankings read in one scan). */
function batchedPath(range, filters) {
  return `/v1/sites/${siteId}/reports/dashboard-v2?${new URLSearchParams({ ...range, ...filters, compare: 'previous', limit: '10', grouped: 'true' })}`;
}

/** The two goals of --goals, made once (the data dir keeps them). */
async function ensureGoals(url) {
  const existing = (await get(url, `/v1/sites/${siteId}/goals`)).goals.map((goal) => goal.name);
  for (const body of [{ name: 'Purchase', kind: 'event', event_type: 'purchase' }, { name: 'Pricing', kind: 'pageview', path: '/pricing' }]) {
    if (existing.includes(body.name)) continue;
    const response = await fetch(`${url}/v1/sites/${siteId}/goals`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status !== 201) throw new Error(`goal ${body.name}: ${response.status} ${await response.text()}`);
  }
}

/** CPU time (ms, user + system, every thread) the server process has used: far less noisy under load than wall time. */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, the 14th and 15th fields of the whole line, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Median (min-max) ms until every answer of the batch, sent together, has arrived, and the server's CPU ms per run. */
async function timeBatch(server, paths) {
  const times = [];
  const cpu = [];
  for (let run = 0; run < runs + 2; run++) {
    const started = performance.now();
    const cpuBefore = cpuMsOf(server.child.pid);
    await Promise.all(paths.map((path) => get(server.url, path)));
    if (run >= 2) (times.push(performance.now() - started), cpu.push(cpuMsOf(server.child.pid) - cpuBefore));
  }
  return `${fixed(median(times), 0).padStart(6)} ms (${fixed(Math.min(...times), 0)}-${fixed(Math.max(...times), 0)}), server CPU ${fixed(median(cpu), 0)} ms`;
}

export async function run(args) {
  const events = Number(option(args, '--events', 10_000_000));
  runs = Number(option(args, '--runs', runs));
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const keptDir = option(args, '--data', undefined);
  const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'sightline-bench-dashboard-'));
  const reuse = keptDir !== undefined && existsSync(join(keptDir, 'sightline.db'));
  const serverEnv = { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, RATE_LIMIT_SITE: '10000000', RATE_LIMIT_IP: '10000000' };
  const profileDir = option(args, '--server-cpu-prof', undefined);
  // node refuses --cpu-prof in NODE_OPTIONS: the profiled server is the launcher run by node with its own V8 flags.
  const launcher = join(root, 'bin', 'sightline');
  const launcherFlags = readFileSync(launcher, 'utf8').split('\n')[0].split(' ').filter((flag) => flag.startsWith('--'));
  const profiledServe = () =>
    profileDir === undefined
      ? serve()
      : startProcess(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...launcherFlags, launcher, 'serve', '--port', '0'], { ...serverEnv, MALLOC_ARENA_MAX: '2' });
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
    const server = await profiledServe();
    if (args.includes('--goals')) await ensureGoals(server.url);
    while ((await scrapeValue(server.url, 'sightline_projector_lag_events')) !== 0) await new Promise((resolve) => setTimeout(resolve, 250));
    const range = { from: dateText(benchLastDayMs - 29 * dayMs), to: dateText(benchLastDayMs) };
    // The source a user clicks: the top row of the grouped Sources panel.
    const top = (await get(server.url, `/v1/sites/${siteId}/reports/sources-v2?${new URLSearchParams({ ...range, grouped: 'true', limit: '1' })}`)).data.rows[0].source;
    const paths = dashboardPaths(range, { source: top });
    const goals = (await get(server.url, `/v1/sites/${siteId}/goals`)).goals.length;
    console.log(`${goals} goal(s) on the site; load average ${loadavg().map((value) => value.toFixed(2)).join(' ')}; ${events.toLocaleString('en')} events, last 30 days, ${paths.length} requests in parallel:`);
    const two = { source: top, device: 'desktop' };
    const lines = [
      ['one summary-v2 alone (floor)', [paths[0]]],
      ['the dashboard unfiltered, one dashboard-v2', [batchedPath(range, {})]],
      [`after a click on ${top}, one dashboard-v2 (the UI)`, [batchedPath(range, { source: top })]],
      ['after a second click (device=desktop), one dashboard-v2', [batchedPath(range, two)]],
      ['the dashboard unfiltered, 10 requests (before)', dashboardPaths(range, {})],
      [`after a click on ${top}, 10 requests (before)`, paths],
      ['after a second click (device=desktop), 10 requests (before)', dashboardPaths(range, two)],
    ];
    // --batched-only: the dashboard-v2 lines alone (the ten requests of a filtered view take minutes on the 10M density).
    // --only TEXT: the lines whose label holds TEXT, beside the floor (a profile of one view).
    const only = option(args, '--only', undefined);
    const chosen = lines.filter(([label], index) => (!args.includes('--batched-only') || !label.includes('(before)')) && (only === undefined || index === 0 || label.includes(only)));
    for (const [label, batch] of chosen) {
      // The ten requests of a filtered view can take minutes on a large site (each loads the raw events again).
      const figure = await timeBatch(server, batch).catch((error) => `failed: ${error.cause?.code ?? error.message}`);
      console.log(`  ${label.padEnd(60)} ${figure}`);
    }
    console.log(`load average after: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
    await stopProcess(server.child);
  } finally {
    if (keptDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}
