// npm run bench -- behaviour [--events N] [--days D] [--visitors V] [--data DIR]: the behaviour reports and the
// e-mail report on a busy site. The data set is the reports benchmark's generator with its analysis traffic (a
// signup and purchase funnel, users on two devices: bench/reports-workload.ts) written and projected first. By
// default it is the last 84 days of the 10M-event data set at that set's density: 2.1M events over 84 days and the
// same 200,000 visitors, 25,000 events a day as 10M over 400 days; `--events 10000000 --days 400` is the whole set.
// Over HTTP (median of 5 after 2 warm-ups): journeys-v2 over 30 days (4 steps from the entry page, from `/` and to
// the end page `/pricing`, and with a visit filter, country=AA), page-flow-v2 of `/` (all read the projector's
// visit_sequences), retention-v2 by week over 12 weeks (by first visit, on a purchase goal and on a /pricing goal), each target under
// 1 s; then the weekly and monthly report mails (composeReportMail, target under 2 s). Beside them, measured in the
// same run: summary-v2 over 30 days (a rollup read) and the floor of an event-log read of the 30 days, the bare SQL
// scan of the range's events with their visitor numbers (what journeys read before grouping them). Load averages
// before and after. A database from before schema 30 or 31 is upgraded at the server's start: its visit_sequences fills
// print their own time (stderr, "Schema 30: done, …", "Schema 31: done, …"), and the start's time is printed beside it; then the table's
// bytes per event (dbstat). --data DIR keeps the database and, when it already holds one, skips the writing; --only WORD[,WORD…] times
// only the requests whose label holds one of the words (e.g. retention, or journeys,page-flow), beside the references.
// --projector-cost [--events N] instead writes N events (default 200,000, same density) once and projects two copies,
// without and with visit_sequences' batch subscriber: the CPU time per event of each (process.cpuUsage in the
// projecting child, far steadier than elapsed time on a shared machine), and the table's bytes per event.
// --index-cost --data DIR instead times what the event log's partial index of the non-pageview events (schema 31,
// retention on an event goal) costs an insert: DIR's events (up to 200,000) inserted in transactions of 500 into a
// fresh event log without and with it, CPU per event, three rounds, for DIR's mix and for its custom events alone.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { adminToken, call, fixed, median, root, startProcess, stopProcess } from './harness.mjs';
import { bundleMailTimer } from './mail.mjs';
import { benchLastDayMs, reportsWorkload, runWorkload } from './workload.mjs';

const siteId = 'bench';
const dayMs = 86_400_000;
const runs = 5;
const warmups = 2;

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : fallback;
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const dateText = (ms) => new Date(ms).toISOString().slice(0, 10);

async function waitForProjector(url) {
  for (;;) {
    const metrics = await call(`${url}/metrics`);
    if (/^sightline_projector_lag_events 0$/m.test(metrics)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function timeGet(url, path) {
  const times = [];
  for (let run = 0; run < runs + warmups; run++) {
    const started = performance.now();
    const response = await fetch(url + path, { headers: { authorization: `Bearer ${adminToken}` } });
    const text = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
    if (run >= warmups) times.push(elapsed);
  }
  return { median: median(times), min: Math.min(...times), max: Math.max(...times) };
}

/** The bare scan journeys start from (visit-page-rows.ts without the temporary table), timed like the requests. */
function timeFloor(dataDir, startMs, endMs) {
  const db = new Database(join(dataDir, 'sightline.db'), { readonly: true });
  db.prepare('ATTACH DATABASE ? AS eventlog').run(join(dataDir, 'events.db'));
  const scan = db.prepare(
    `SELECT count(*) AS events, count(DISTINCT ev.vid) AS visitors, sum(length(e.path)) AS bytes
       FROM events e INDEXED BY events_by_site_ts JOIN event_visitors ev ON ev.seq = e.seq
      WHERE e.site_id = ? AND e.ts >= ? AND e.ts < ? AND e.is_bot = 0 AND e.is_internal = 0`,
  );
  const times = [];
  let figures;
  for (let run = 0; run < runs + warmups; run++) {
    const started = performance.now();
    figures = scan.get(siteId, startMs, endMs);
    if (run >= warmups) times.push(performance.now() - started);
  }
  db.close();
  return { ...figures, median: median(times), min: Math.min(...times), max: Math.max(...times) };
}

/** visit_sequences' bytes (dbstat, its one b-tree) per event of the log and per visit row. */
function tableBytes(dataDir) {
  const db = new Database(join(dataDir, 'sightline.db'), { readonly: true });
  db.prepare('ATTACH DATABASE ? AS eventlog').run(join(dataDir, 'events.db'));
  const bytes = db.prepare("SELECT sum(pgsize) FROM dbstat WHERE name = 'visit_sequences'").pluck().get() ?? 0;
  const rows = db.prepare('SELECT count(*) FROM visit_sequences').pluck().get();
  const events = db.prepare('SELECT count(*) FROM eventlog.events').pluck().get();
  db.close();
  return `visit_sequences: ${rows.toLocaleString('en')} rows, ${fixed(bytes / 2 ** 20, 1)} MiB, ${fixed(bytes / events, 2)} bytes per event (${events.toLocaleString('en')} events), ${fixed(bytes / Math.max(rows, 1), 1)} per row`;
}

const line = (label, timing, target) =>
  `  ${label.padEnd(40)} ${fixed(timing.median, 1).padStart(9)}  (${fixed(timing.min, 1)}-${fixed(timing.max, 1)})${target ? `  target < ${target}${timing.median < target ? '' : '  MISSED'}` : ''}`;

/** What the visit_sequences subscriber costs the projector: two copies of one database, projected without and with it. */
async function projectorCost(args) {
  const events = Number(option(args, '--events', 200_000));
  const days = Math.max(1, Math.round(events / 25_000));
  const visitors = Math.max(1000, Math.round((200_000 * events) / 2_100_000));
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const dirs = [mkdtempSync(join(tmpdir(), 'sightline-bench-seq-a-')), mkdtempSync(join(tmpdir(), 'sightline-bench-seq-b-'))];
  try {
    const server = await startProcess(join(root, 'bin', 'sightline'), ['serve', '--port', '0'], { DATA_DIR: dirs[0], ADMIN_TOKEN: adminToken });
    await call(`${server.url}/workspaces`, 'POST', { name: 'Bench', slug: 'bench' });
    await call(`${server.url}/workspaces/bench/sites`, 'POST', { id: siteId, name: 'Bench' });
    await stopProcess(server.child);
    const workload = { ...reportsWorkload(join(dirs[0], 'sightline.db'), siteId, events), days, visitors, analysis: true };
    await runWorkload('write', workload);
    for (const name of ['sightline.db', 'sightline.db-wal', 'events.db', 'events.db-wal', 'secrets.key']) {
      if (existsSync(join(dirs[0], name))) copyFileSync(join(dirs[0], name), join(dirs[1], name));
    }
    console.log(`Projector cost of visit_sequences: ${events.toLocaleString('en')} events over ${days} days, ${visitors.toLocaleString('en')} visitors, batches of 5,000; load average ${loadAverage()}`);
    for (const [index, without] of [[0, true], [1, false]]) {
      const result = await runWorkload('project', { databasePath: join(dirs[index], 'sightline.db'), batchEvents: 5000, withoutVisitSequences: without });
      console.log(
        `  ${without ? 'without the subscriber' : 'with the subscriber   '}  ${fixed((result.cpuMs * 1000) / result.events, 1).padStart(7)} µs CPU per event  (${fixed(result.cpuMs / 1000, 1)} s CPU, ${fixed(result.elapsedMs / 1000, 1)} s elapsed)`,
      );
    }
    console.log(`  ${tableBytes(dirs[1])}`);
    console.log(`Load average after: ${loadAverage()}`);
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** What the partial index of the non-pageview events costs an insert into the event log (see the header). */
function indexCost(args) {
  const source = join(option(args, '--data', ''), 'events.db');
  if (!existsSync(source)) throw new Error('--index-cost needs --data DIR holding an events.db');
  const reader = new Database(source, { readonly: true });
  const schema = reader.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'").pluck().get();
  const columns = reader
    .prepare('SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0 AND name <> ?')
    .pluck()
    .all('events', 'seq')
    .join(', ');
  reader.close();
  const insertAll = (withIndex, where) => {
    const dir = mkdtempSync(join(tmpdir(), 'sightline-bench-index-'));
    try {
      const db = new Database(join(dir, 'events.db'));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec(`${schema}; CREATE INDEX events_by_site ON events (site_id); CREATE INDEX events_by_site_ts ON events (site_id, ts);`);
      if (withIndex) db.exec("CREATE INDEX events_by_site_type_ts ON events (site_id, type, ts) WHERE type <> 'pageview'");
      db.prepare('ATTACH DATABASE ? AS source').run(source);
      const rows = db.prepare(`SELECT ${columns} FROM source.events WHERE ${where} LIMIT 200000`).raw().all();
      const insert = db.prepare(`INSERT INTO events (${columns}) VALUES (${columns.split(', ').map(() => '?').join(', ')})`);
      const commit = db.transaction((slice) => {
        for (const row of slice) insert.run(row);
      });
      const started = process.cpuUsage();
      for (let at = 0; at < rows.length; at += 500) commit(rows.slice(at, at + 500));
      const used = process.cpuUsage(started);
      db.close();
      return { events: rows.length, us: (used.user + used.system) / rows.length };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  console.log(`Insert cost of the event log's partial index (events of ${source}); load average ${loadAverage()}`);
  for (const [label, where] of [
    ["the data set's mix", '1'],
    ['its custom events alone', "type <> 'pageview'"],
  ]) {
    const rounds = [0, 1, 2].map(() => [insertAll(false, where), insertAll(true, where)]);
    console.log(`  ${label} (${rounds[0][0].events.toLocaleString('en')} events): µs CPU per insert without / with: ${rounds.map(([without, withIt]) => `${fixed(without.us, 2)} / ${fixed(withIt.us, 2)}`).join(', ')}`);
  }
  console.log(`Load average after: ${loadAverage()}`);
}

export async function run(args) {
  if (args.includes('--projector-cost')) return projectorCost(args);
  if (args.includes('--index-cost')) return indexCost(args);
  const events = Number(option(args, '--events', 2_100_000));
  const days = Number(option(args, '--days', 84));
  const visitors = Number(option(args, '--visitors', 200_000));
  const only = option(args, '--only', '');
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const keptDir = option(args, '--data', undefined);
  const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'sightline-bench-behaviour-'));
  const reuse = keptDir !== undefined && existsSync(join(keptDir, 'sightline.db'));
  const serve = () => startProcess(join(root, 'bin', 'sightline'), ['serve', '--port', '0'], { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken });
  const workload = { ...reportsWorkload(join(dataDir, 'sightline.db'), siteId, events), days, visitors, analysis: true };
  try {
    console.log(
      `Behaviour benchmark: ${events.toLocaleString('en')} events over ${days} days (${fixed(events / days, 0)} a day; the 10M data set has 25,000), ${visitors.toLocaleString('en')} visitors, ${workload.paths} paths, with the analysis traffic (purchases, two-device users); 2 cores.`,
    );
    if (reuse) console.log(`Reusing the database in ${dataDir}.`);
    else {
      const server = await serve();
      await call(`${server.url}/workspaces`, 'POST', { name: 'Bench', slug: 'bench' });
      await call(`${server.url}/workspaces/bench/sites`, 'POST', { id: siteId, name: 'Bench' });
      await stopProcess(server.child);
      const written = await runWorkload('write', workload);
      const projected = await runWorkload('project', { databasePath: workload.databasePath, batchEvents: 5000 });
      console.log(`  written in ${fixed(written.elapsedMs / 1000, 0)} s, projected in ${fixed(projected.elapsedMs / 1000, 0)} s (load average ${loadAverage()})`);
    }
    const files = ['sightline.db', 'sightline.db-wal', 'events.db', 'events.db-wal'].map((name) => join(dataDir, name)).filter(existsSync);
    console.log(`  data: ${fixed(files.reduce((sum, path) => sum + statSync(path).size, 0) / 2 ** 20, 0)} MiB (both files and WALs)`);

    const startedAt = performance.now();
    const server = await serve();
    console.log(`  server started in ${fixed((performance.now() - startedAt) / 1000, 1)} s (an upgrade's backup and backfill included)`);
    try {
      await waitForProjector(server.url);
      console.log(`  ${tableBytes(dataDir)}`);
      const goals = JSON.parse(await call(`${server.url}/v1/sites/${siteId}/goals`)).goals;
      const goalNamed = async (body) => goals.find((row) => row.name === body.name) ?? JSON.parse(await call(`${server.url}/v1/sites/${siteId}/goals`, 'POST', body));
      // An event goal reads the event log; a pageview goal without props, the path visitor sets.
      const goal = await goalNamed({ name: 'Purchase', kind: 'event', event_type: 'purchase' });
      const pageGoal = await goalNamed({ name: 'Pricing', kind: 'pageview', path: '/pricing' });
      const last30 = { from: dateText(benchLastDayMs - 29 * dayMs), to: dateText(benchLastDayMs) };
      const weeks12 = `from=${dateText(benchLastDayMs - 83 * dayMs)}&to=${dateText(benchLastDayMs)}`;
      const range30 = `from=${last30.from}&to=${last30.to}`;
      console.log(`\nLoad average before: ${loadAverage()}`);
      const floor = timeFloor(dataDir, benchLastDayMs - 29 * dayMs, benchLastDayMs + dayMs);
      console.log(`Reference, 30 days: ${floor.events.toLocaleString('en')} events of ${floor.visitors.toLocaleString('en')} visitors in the range. Median of ${runs} after ${warmups} warm-ups (min-max), ms:`);
      console.log(line('floor: bare SQL scan of the 30 days', floor));
      console.log(line('summary-v2, 30 days (rollups)', await timeGet(server.url, `/v1/sites/${siteId}/reports/summary-v2?${range30}`)));
      for (const [label, path] of [
        ['journeys-v2 4 steps, 30 days', `/v1/sites/${siteId}/reports/journeys-v2?${range30}&steps=4`],
        ['journeys-v2 4 steps from /, 30 days', `/v1/sites/${siteId}/reports/journeys-v2?${range30}&steps=4&start_path=%2F`],
        // The generator's paths are /p/N (most visited first) and the funnel's: `/` is in no visit, so the two reads of `/`
        // find nothing to count; /p/0, the top page, is the busy anchor.
        ['journeys-v2 4 steps from /p/0, 30 days', `/v1/sites/${siteId}/reports/journeys-v2?${range30}&steps=4&start_path=%2Fp%2F0`],
        ['journeys-v2 4 steps to /pricing, 30 days', `/v1/sites/${siteId}/reports/journeys-v2?${range30}&steps=4&end_path=%2Fpricing`],
        ['journeys-v2 4 steps, country=AA, 30 days', `/v1/sites/${siteId}/reports/journeys-v2?${range30}&steps=4&country=AA`],
        ['page-flow-v2 of /, 30 days', `/v1/sites/${siteId}/reports/page-flow-v2?${range30}&path=%2F`],
        ['page-flow-v2 of /p/0, 30 days', `/v1/sites/${siteId}/reports/page-flow-v2?${range30}&path=%2Fp%2F0`],
        ['retention-v2 weekly, 12 weeks', `/v1/sites/${siteId}/reports/retention-v2?${weeks12}&period=week`],
        ['retention-v2 weekly on a purchase goal, 12 weeks', `/v1/sites/${siteId}/reports/retention-v2?${weeks12}&period=week&goal=${goal.id}`],
        ['retention-v2 weekly on a /pricing goal, 12 weeks', `/v1/sites/${siteId}/reports/retention-v2?${weeks12}&period=week&goal=${pageGoal.id}`],
      ]) {
        if (!only.split(',').some((word) => label.includes(word))) continue;
        console.log(line(label, await timeGet(server.url, path), 1000));
      }
    } finally {
      await stopProcess(server.child);
    }
    const timer = await bundleMailTimer();
    const results = JSON.parse(execFileSync(process.execPath, [timer, dataDir, siteId, String(Date.UTC(2026, 10, 2, 6)), String(runs)], { encoding: 'utf8' }).trim().split('\n').pop());
    for (const [frequency, result] of Object.entries(results)) {
      console.log(line(`report mail, ${frequency}`, { median: median(result.times), min: Math.min(...result.times), max: Math.max(...result.times) }, 2000));
    }
    console.log(`Load average after: ${loadAverage()}`);
  } finally {
    if (keptDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}
