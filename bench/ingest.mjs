// npm run bench -- ingest: the real server (tracking plan loaded, whole pipeline on) against a bare node:http server
// answering 202 and a minimal durable floor (bench/floor-server.mjs), all loaded from separate processes by the same
// load generator. Prints, in one run: the floor (a bare SQLite commit, NORMAL and FULL); open-loop client and
// server p50/p99 at 2,000 and 5,000 single-event POSTs/s beside the durable floor's, with the ratios and the event
// loop's delay; saturated throughput of the three servers and the ratio; 500-event batches; RSS; bytes per stored
// event; the same latencies with synchronous FULL and on a database that already holds the backlog, the projector's
// catch-up from that (chronological) backlog, and its catch-up from a year of spread-out history.
// `--quick` shortens every phase; `--events N` sizes the backlogs; `--only saturation|latency|catchup|tail|projector|size`
// runs one part (see each function).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchSiteId, call, fixed, median, root, rssMiB, runLoad, saturate, scrapeHistogram, scrapeValue, serverQuantile, startBenchServer, startProcess, stopProcess, threadCpuMs } from './harness.mjs';
import { databaseBreakdown, printBreakdown } from './db-size.mjs';
import { measureCommitFloor } from './sqlite-floor.mjs';
import { runWorkload } from './workload.mjs';

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : fallback;
}

function databaseBytes(dataDir) {
  return ['sightline.db', 'sightline.db-wal', 'events.db', 'events.db-wal'].map((name) => join(dataDir, name)).filter(existsSync).reduce((sum, path) => sum + statSync(path).size, 0);
}

/**
 * RSS split as /proc reports it: anonymous (V8's heaps, malloc: SQLite's page caches) and file-backed (mostly the
 * node binary's own pages, shared with every node process). docs/ingest.md, "Memory", says where each part goes.
 */
function rssParts(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rssAnon: mib('RssAnon'), rssFile: mib('RssFile') };
}

const rssText = (figures) => `RSS ${fixed(figures.rss, 0)} MiB (anonymous ${fixed(figures.rssAnon, 0)}, file ${fixed(figures.rssFile, 0)})`;

/** The HTTP thread's GC pauses from /metrics (sightline_gc_pause_ms): by kind, the buckets, their sum and count. */
async function scrapeGcPauses(url) {
  const text = await call(`${url}/metrics`);
  const kinds = new Map();
  const of = (kind) => kinds.get(kind) ?? kinds.set(kind, { buckets: [], sum: 0, count: 0 }).get(kind);
  for (const line of text.split('\n')) {
    const bucket = /^sightline_gc_pause_ms_bucket\{kind="(\w+)",le="([^"]+)"\} (\d+)$/.exec(line);
    if (bucket) of(bucket[1]).buckets.push({ le: bucket[2] === '+Inf' ? Infinity : Number(bucket[2]), count: Number(bucket[3]) });
    const total = /^sightline_gc_pause_ms_(sum|count)\{kind="(\w+)"\} ([0-9.e+-]+)$/.exec(line);
    if (total) of(total[2])[total[1]] = Number(total[3]);
  }
  return kinds;
}

/** GC pauses during a phase: ms of pause per second of it, and the p99 of its scavenges (minor pauses). */
function gcDuring(before, after, seconds) {
  let pausedMs = 0;
  for (const [kind, series] of after) pausedMs += series.sum - (before.get(kind)?.sum ?? 0);
  const minorAfter = after.get('minor');
  const minorBefore = before.get('minor')?.buckets ?? [];
  return { gcMsPerSecond: after.size === 0 ? null : pausedMs / seconds, minorP99: minorAfter ? serverQuantile(minorBefore, minorAfter.buckets, 0.99) : null };
}

/** Open-loop single-event POSTs at `rate`; server-side p50/p99 from the histogram, client p50/p99, event-loop delay, RSS at the end. */
async function openLoop(server, rate, seconds) {
  const before = await scrapeHistogram(server.url);
  const delayBefore = await scrapeHistogram(server.url, 'sightline_projector_delay_ms');
  const loopBefore = await scrapeHistogram(server.url, 'sightline_event_loop_delay_ms');
  const gcBefore = await scrapeGcPauses(server.url);
  const result = runLoad({ url: server.url, siteId: benchSiteId, mode: 'open', rate, connections: 50, durationMs: seconds * 1000 });
  const gcAfter = await scrapeGcPauses(server.url);
  const after = await scrapeHistogram(server.url);
  const delayAfter = await scrapeHistogram(server.url, 'sightline_projector_delay_ms');
  const loopAfter = await scrapeHistogram(server.url, 'sightline_event_loop_delay_ms');
  return {
    serverP50: serverQuantile(before, after, 0.5),
    serverP99: serverQuantile(before, after, 0.99),
    clientP50: result.p50,
    clientP99: result.p99,
    loopP99: serverQuantile(loopBefore, loopAfter, 0.99),
    ...gcDuring(gcBefore, gcAfter, seconds),
    lagP99: serverQuantile(delayBefore, delayAfter, 0.99),
    rss: rssMiB(server.child.pid),
    ...rssParts(server.child.pid),
    statuses: result.statuses,
  };
}

function printOpenLoop(label, rate, figures) {
  const target = rate === 2000 ? 2 : 5;
  console.log(
    `  ${label.padEnd(22)} ${String(rate).padStart(5)} ev/s: server p50 ${fixed(figures.serverP50, 3)}  p99 ${fixed(figures.serverP99, 3)} ms (target < ${target})  client p50 ${fixed(figures.clientP50)} p99 ${fixed(figures.clientP99)}  loop delay p99 ${fixed(figures.loopP99, 1)}  projector lag p99 ${fixed(figures.lagP99, 0)} ms  ${rssText(figures)}  ${JSON.stringify(figures.statuses)}`,
  );
}

/**
 * Sightline against the durable floor (bench/floor-server.mjs) at the same rate with the same load generator,
 * alternating round by round so the machine's noise hits both alike; prints medians over the rounds and the ratios.
 * `others` (e.g. the build `--against DIR` names) take their turn in each round too, each printed beside the floor.
 */
async function openLoopAgainstFloor(server, floor, rate, seconds, rounds, others = []) {
  const targets = [{ name: 'Sightline', server }, ...others];
  const runs = new Map(targets.map((target) => [target.name, []]));
  const durable = [];
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) runs.get(target.name).push(await openLoop(target.server, rate, seconds));
    durable.push(runLoad({ url: floor.url, siteId: benchSiteId, mode: 'open', rate, connections: 50, durationMs: seconds * 1000 }));
  }
  const m = (list, name) => median(list.map((run) => run[name]).filter((value) => value !== null && value !== undefined));
  const floorP50 = m(durable, 'p50');
  const floorP99 = m(durable, 'p99');
  let first;
  for (const target of targets) {
    const sightline = runs.get(target.name);
    const figures = {
      clientP50: m(sightline, 'clientP50'),
      clientP99: m(sightline, 'clientP99'),
      serverP50: m(sightline, 'serverP50'),
      serverP99: m(sightline, 'serverP99'),
      loopP99: m(sightline, 'loopP99'),
      gcMsPerSecond: m(sightline, 'gcMsPerSecond'),
      minorP99: m(sightline, 'minorP99'),
      lagP99: m(sightline, 'lagP99'),
      rss: Math.max(...sightline.map((run) => run.rss)),
      // The parts of the round that read the most.
      ...(({ rssAnon, rssFile }) => ({ rssAnon, rssFile }))(sightline.reduce((most, run) => (run.rss > most.rss ? run : most))),
      floorP50,
      floorP99,
    };
    first ??= figures;
    console.log(
      `  ${String(rate).padStart(5)} ev/s, median of ${rounds} x ${seconds} s: ${target.name} client p50 ${fixed(figures.clientP50)} p99 ${fixed(figures.clientP99)} ms, server p50 ${fixed(figures.serverP50, 3)} p99 ${fixed(figures.serverP99, 3)} ms, event-loop delay p99 ${fixed(figures.loopP99, 1)} ms, GC pauses ${fixed(figures.gcMsPerSecond, 1)} ms/s (scavenge p99 ${fixed(figures.minorP99, 1)} ms), projector lag p99 ${fixed(figures.lagP99, 0)} ms, ${rssText(figures)}` +
        ` | floor client p50 ${fixed(floorP50)} p99 ${fixed(floorP99)} ms | ratio client p50 ${fixed(figures.clientP50 / floorP50)} p99 ${fixed(figures.clientP99 / floorP99)} (target p99 <= 2 at 2,000/s)`,
    );
    console.log(`         rounds: ${target.name} client p99 ${sightline.map((run) => fixed(run.clientP99, 1)).join(', ')}; floor ${durable.map((run) => fixed(run.p99, 1)).join(', ')}; statuses ${JSON.stringify(sightline.at(-1).statuses)}`);
  }
  return first;
}

/** Waits until the projector has caught up (its lag gauge reads 0); returns the seconds it took. */
async function waitForProjector(url, limitSeconds = 1800) {
  const started = performance.now();
  for (;;) {
    const lag = await scrapeValue(url, 'sightline_projector_lag_events');
    if (lag === 0) return (performance.now() - started) / 1000;
    if ((performance.now() - started) / 1000 > limitSeconds) throw new Error(`the projector did not catch up in ${limitSeconds} s (lag ${lag})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `--only saturation`: just the saturated rounds, alternating Sightline, bare node:http and the durable floor (and,
 * with `--against DIR`, a second Sightline built in DIR, e.g. a copy of the previous commit's bin/ and dist/), with
 * `--rounds N` and `--seconds S`. Ratios inside one run survive a noisy machine where absolute figures do not.
 */
async function saturationOnly(args, scratch, started) {
  const seconds = Number(option(args, '--seconds', 5));
  const rounds = Number(option(args, '--rounds', 5));
  const against = option(args, '--against', undefined);
  for (const dir of ['sat', 'against']) mkdirSync(join(scratch, dir), { recursive: true });
  const targets = [{ name: 'Sightline', ...(await startBenchServer(root, join(scratch, 'sat'))) }];
  if (against) targets.push({ name: 'against', ...(await startBenchServer(against, join(scratch, 'against'))) });
  targets.push({ name: 'bare', ...(await startProcess(process.execPath, [join(root, 'bench', 'bare-server.mjs')], {})) });
  targets.push({ name: 'floor', ...(await startProcess(process.execPath, [join(root, 'bench', 'floor-server.mjs')], {})) });
  started.push(...targets);
  for (const target of targets) saturate(target.url, 3);
  const runs = new Map(targets.map((target) => [target.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const target of targets) {
      // The HTTP thread's own CPU (its thread id is the pid): the bottleneck at saturation, without the projector's.
      const before = threadCpuMs(target.child.pid).get(target.child.pid);
      const result = saturate(target.url, seconds, target.child.pid);
      result.httpThreadCores = (threadCpuMs(target.child.pid).get(target.child.pid) - before) / 1000 / seconds;
      runs.get(target.name).push(result);
    }
    console.log(`  round ${round + 1}: ${targets.map((t) => `${t.name} ${fixed(runs.get(t.name)[round].requestsPerSecond, 0)}`).join(', ')}`);
  }
  const rps = (name) => median(runs.get(name).map((r) => r.requestsPerSecond));
  const ratios = (name, of) => runs.get(name).map((r, index) => r.requestsPerSecond / runs.get(of)[index].requestsPerSecond);
  console.log(`\nSaturated, single-event POSTs over 50 connections, median of ${rounds} rounds of ${seconds} s:`);
  for (const target of targets) {
    const cores = median(runs.get(target.name).map((r) => r.serverCores));
    // Server CPU per request: what a noisy machine disturbs least (it takes cores away, not work per request).
    const cpuUs = median(runs.get(target.name).map((r) => (r.serverCores * 1e6) / r.requestsPerSecond));
    const httpUs = median(runs.get(target.name).map((r) => (r.httpThreadCores * 1e6) / r.requestsPerSecond));
    console.log(`  ${target.name.padEnd(10)}: ${fixed(rps(target.name), 0)} req/s (${fixed(cores)} server cores; CPU per request: ${fixed(cpuUs, 1)} µs in all, ${fixed(httpUs, 1)} µs on the HTTP thread); ${fixed(rps(target.name) / rps('bare'), 3)} of bare (per-round ratio median ${fixed(median(ratios(target.name, 'bare')), 3)})`);
  }
  if (against) {
    const httpUs = (name) => runs.get(name).map((r) => (r.httpThreadCores * 1e6) / r.requestsPerSecond);
    const perRound = httpUs('Sightline').map((us, index) => us / httpUs('against')[index]);
    console.log(`  Sightline / against: throughput per-round median ${fixed(median(ratios('Sightline', 'against')), 3)}; HTTP-thread CPU per request per-round median ${fixed(median(perRound), 3)}`);
  }
}

/**
 * `--only latency --against DIR`: open-loop server-side p99 at 2,000 and 5,000 POSTs/s, alternating Sightline and
 * the build in DIR round by round (`--rounds N`, `--seconds S`): on a noisy machine only the comparison means much.
 */
async function latencyOnly(args, scratch, started) {
  const seconds = Number(option(args, '--seconds', 5));
  const rounds = Number(option(args, '--rounds', 3));
  const against = option(args, '--against', undefined);
  const targets = [{ name: 'Sightline', serverRoot: root }, ...(against ? [{ name: 'against', serverRoot: against }] : [])];
  for (const target of targets) {
    const dataDir = join(scratch, target.name);
    mkdirSync(dataDir, { recursive: true });
    Object.assign(target, await startBenchServer(target.serverRoot, dataDir));
    started.push(target);
    runLoad({ url: target.url, siteId: benchSiteId, mode: 'open', rate: 2000, connections: 50, durationMs: 3000 });
  }
  const p99s = new Map();
  for (let round = 0; round < rounds; round++) {
    for (const rate of [2000, 5000]) {
      for (const target of targets) {
        const figures = await openLoop(target, rate, seconds);
        const key = `${target.name} ${rate}`;
        p99s.set(key, [...(p99s.get(key) ?? []), figures.serverP99]);
        console.log(`  round ${round + 1} ${key}/s: server p99 ${fixed(figures.serverP99, 3)} ms, ${rssText(figures)}`);
      }
    }
  }
  for (const [key, values] of p99s) console.log(`${key.padEnd(16)}/s: server p99 median ${fixed(median(values), 3)} ms (${values.map((v) => fixed(v, 2)).join(', ')})`);
}

/** `--only catchup`: the backlog phase alone (`--events N`, default 200,000): load it, then time the projector's catch-up. */
async function catchUpOnly(args, scratch, started) {
  const backlog = Number(option(args, '--events', 200_000));
  const backlogDir = join(scratch, 'backlog');
  mkdirSync(backlogDir, { recursive: true });
  const seeded = await startBenchServer(root, backlogDir);
  await stopProcess(seeded.child);
  const workload = { databasePath: join(backlogDir, 'sightline.db'), siteId: benchSiteId, events: backlog, days: 400, paths: 5000, referrers: 300, countries: 50, visitors: Math.max(1000, Math.round(backlog / 50)), lastDayMs: Date.UTC(2026, 9, 31) };
  const written = await runWorkload('write', workload);
  const loaded = await startBenchServer(root, backlogDir);
  started.push(loaded);
  const rssAtStart = rssMiB(loaded.child.pid);
  const catchUp = await waitForProjector(loaded.url);
  console.log(`${backlog.toLocaleString('en')} events written in ${fixed(written.elapsedMs / 1000, 1)} s; RSS at start ${fixed(rssAtStart, 0)} MiB; projector catch-up ${fixed(catchUp, 1)} s, ${fixed(backlog / catchUp, 0)} events/s; RSS after ${fixed(rssMiB(loaded.child.pid), 0)} MiB`);
}

/**
 * `--only size`: a fresh server loaded as the full run loads it before its size is read, shorter (`--seconds S`,
 * default 10): open loop at 2,000 events/s, then 500-event batches over 8 connections; once the projector has
 * caught up and the server stopped, the bytes per stored event and where they go.
 */
async function sizeOnly(args, scratch, started) {
  const seconds = Number(option(args, '--seconds', 10));
  const dataDir = join(scratch, 'size');
  mkdirSync(dataDir, { recursive: true });
  const server = await startBenchServer(root, dataDir);
  started.push(server);
  runLoad({ url: server.url, siteId: benchSiteId, mode: 'open', rate: 2000, connections: 50, durationMs: seconds * 1000 });
  runLoad({ url: server.url, siteId: benchSiteId, mode: 'closed', connections: 8, durationMs: seconds * 1000, batch: 500 });
  await waitForProjector(server.url);
  await stopProcess(server.child);
  const breakdown = databaseBreakdown(dataDir);
  console.log(`${fixed(databaseBytes(dataDir) / breakdown.events, 0)} bytes per stored event (target <= 300), raw JSON kept verbatim`);
  printBreakdown(breakdown);
}

/**
 * `--only tail`: the open loops against the durable floor alone (`--rounds N`, `--seconds S`), on a fresh server;
 * with `--against DIR` the build in DIR takes its turn in every round too (before and after in one run).
 */
async function tailOnly(args, scratch, started) {
  const seconds = Number(option(args, '--seconds', 10));
  const rounds = Number(option(args, '--rounds', 3));
  const against = option(args, '--against', undefined);
  const dataDir = join(scratch, 'tail');
  mkdirSync(dataDir, { recursive: true });
  const server = await startBenchServer(root, dataDir);
  const floor = await startProcess(process.execPath, [join(root, 'bench', 'floor-server.mjs')], {});
  started.push(server, floor);
  const others = [];
  if (against) {
    mkdirSync(join(scratch, 'tail-against'), { recursive: true });
    const other = await startBenchServer(against, join(scratch, 'tail-against'));
    started.push(other);
    others.push({ name: 'against', server: other });
  }
  for (const target of [server, floor, ...others.map((other) => other.server)]) runLoad({ url: target.url, siteId: benchSiteId, mode: 'open', rate: 2000, connections: 50, durationMs: 3000 });
  for (const rate of [2000, 5000]) await openLoopAgainstFloor(server, floor, rate, seconds, rounds, others);
}

/** A year of history as an import loads it: `events` visits on days drawn at random over 395 days (bench/reports-workload.ts, `spread`). */
function spreadWorkload(databasePath, events) {
  return { databasePath, siteId: benchSiteId, events, days: 395, paths: 5000, referrers: 300, countries: 50, visitors: Math.max(1000, Math.round(events / 10)), lastDayMs: Date.UTC(2026, 9, 31), spread: true };
}

/**
 * The projector's catch-up on a year of spread-out history: `events` written straight into the event log through the
 * writer's commit (storeGroup, as the writer thread stores them; nothing derived), then projected twice from copies
 * of that log: in a process of its own running projectBatch until caught up (`--profile DIR` writes its
 * --cpu-prof there), and by the real server's projector thread, timed until its lag gauge reads 0.
 */
async function projectorCatchUp(scratch, started, events, profileDir, limitSeconds = 1800) {
  const templateDir = join(scratch, 'spread-template');
  mkdirSync(templateDir, { recursive: true });
  const seeded = await startBenchServer(root, templateDir);
  await stopProcess(seeded.child);
  const written = await runWorkload('write', spreadWorkload(join(templateDir, 'sightline.db'), events));
  const copyOf = (name) => {
    const dir = join(scratch, name);
    cpSync(templateDir, dir, { recursive: true });
    return dir;
  };
  const inProcessDir = copyOf('spread-inprocess');
  const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const alone = await runWorkload('project', { databasePath: join(inProcessDir, 'sightline.db'), batchEvents: 5000 }, nodeArgs);
  rmSync(inProcessDir, { recursive: true, force: true });
  // Printed at once: the server's projector thread runs at nice 19, and on a machine busy with other work it waits.
  console.log(`\nProjector catch-up on spread-out history: ${events.toLocaleString('en')} events over 395 days, written straight into the event log in ${fixed(written.elapsedMs / 1000, 1)} s:`);
  console.log(`  alone (projectBatch in its own process): ${fixed(alone.events / (alone.elapsedMs / 1000), 0)} events/s, ${fixed(alone.events / (alone.cpuMs / 1000), 0)} per CPU-second (${alone.batches} batches, p50 ${fixed(alone.batchP50, 0)} ms, p99 ${fixed(alone.batchP99, 0)} ms; load average ${loadText()})`);
  const serverDir = copyOf('spread-server');
  const server = await startBenchServer(root, serverDir);
  started.push(server);
  const threadsBefore = threadCpuMs(server.child.pid);
  // On a machine busy with other work the nice-19 thread may not finish within the limit: then the figures are of
  // what it projected meanwhile (the lag gauge says how much is left).
  const serverStarted = performance.now();
  let seconds;
  let projected = events;
  try {
    seconds = await waitForProjector(server.url, limitSeconds);
  } catch {
    seconds = (performance.now() - serverStarted) / 1000;
    projected = events - (await scrapeValue(server.url, 'sightline_projector_lag_events'));
  }
  const rss = rssMiB(server.child.pid);
  // The projector thread's own CPU (the busiest thread but the HTTP one, whose id is the pid): what a machine busy
  // with other work leaves a nice-19 thread does not change it.
  let projectorCpuMs = 0;
  for (const [tid, ms] of threadCpuMs(server.child.pid)) if (tid !== server.child.pid) projectorCpuMs = Math.max(projectorCpuMs, ms - (threadsBefore.get(tid) ?? 0));
  await stopProcess(server.child);
  rmSync(serverDir, { recursive: true, force: true });
  return { events, projected, serverSeconds: seconds, serverRate: projected / seconds, perCpuSecond: projected / (projectorCpuMs / 1000), rss };
}

/** The 1, 5 and 15-minute load averages: on a shared machine a rate means little without them. */
function loadText() {
  return loadavg().map((value) => value.toFixed(1)).join(' ');
}

function printCatchUp(figures) {
  const partial = figures.projected < figures.events ? ` (NOT caught up: ${figures.projected.toLocaleString('en')} of ${figures.events.toLocaleString('en')} projected when the limit ran out)` : '';
  console.log(`  in the server (projector thread)       : ${fixed(figures.serverSeconds, 1)} s, ${fixed(figures.serverRate, 0)} events/s (target >= 50,000), ${fixed(figures.perCpuSecond, 0)} per CPU-second of its thread; RSS after ${fixed(figures.rss, 0)} MiB; load average ${loadText()}${partial}`);
}

/**
 * `--only projector`: the spread-out catch-up alone (`--events N`, default 1,000,000; `--profile DIR` for a CPU
 * profile; `--limit S`, default 1800, how long the server's thread may take before its partial figures are printed).
 */
async function projectorOnly(args, scratch, started) {
  const events = Number(option(args, '--events', 1_000_000));
  printCatchUp(await projectorCatchUp(scratch, started, events, option(args, '--profile', undefined), Number(option(args, '--limit', 1800))));
}

export async function run(args) {
  const quick = args.includes('--quick');
  const seconds = quick ? 3 : 10;
  const rounds = quick ? 1 : 3;
  const backlog = Number(option(args, '--events', quick ? 200_000 : 1_000_000));
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const scratch = mkdtempSync(join(tmpdir(), 'sightline-bench-'));
  const started = [];
  const start = async (dataDir, env = {}) => {
    mkdirSync(dataDir, { recursive: true });
    const server = await startBenchServer(root, dataDir, env);
    started.push(server);
    return server;
  };
  try {
    if (option(args, '--only', undefined) === 'saturation') return await saturationOnly(args, scratch, started);
    if (option(args, '--only', undefined) === 'catchup') return await catchUpOnly(args, scratch, started);
    if (option(args, '--only', undefined) === 'latency') return await latencyOnly(args, scratch, started);
    if (option(args, '--only', undefined) === 'size') return await sizeOnly(args, scratch, started);
    if (option(args, '--only', undefined) === 'tail') return await tailOnly(args, scratch, started);
    if (option(args, '--only', undefined) === 'projector') return await projectorOnly(args, scratch, started);
    console.log(`Ingest benchmark: ${rounds} round(s) of ${seconds} s per phase; 2 cores shared by the server, its threads and the load generator.`);
    const normalFloor = measureCommitFloor('NORMAL');
    const fullFloor = measureCommitFloor('FULL');
    console.log(`\nFloor: a bare 5-event SQLite commit on this disk (WAL, 2,000 commits): NORMAL p50 ${fixed(normalFloor.p50, 3)} p99 ${fixed(normalFloor.p99, 3)} ms; FULL p50 ${fixed(fullFloor.p50, 3)} p99 ${fixed(fullFloor.p99, 3)} ms`);

    const freshDir = join(scratch, 'fresh');
    const server = await start(freshDir);
    // The open loops first, on the fresh server: RSS at 2,000 events/s is read there, not after a saturating burst.
    // 3 s at 2,000 events/s warm it up (JIT, caches) first.
    runLoad({ url: server.url, siteId: benchSiteId, mode: 'open', rate: 2000, connections: 50, durationMs: 3000 });
    const bare = await startProcess(process.execPath, [join(root, 'bench', 'bare-server.mjs')], {});
    const floor = await startProcess(process.execPath, [join(root, 'bench', 'floor-server.mjs')], {});
    started.push(bare, floor);
    runLoad({ url: floor.url, siteId: benchSiteId, mode: 'open', rate: 2000, connections: 50, durationMs: 3000 });
    console.log('\nOpen loop, single-event POSTs at a fixed rate, against the durable floor (node:http, JSON.parse, group commit into WAL SQLite with a unique index, 202) with the same load generator; client latency from the scheduled send time, server from its histogram, ms:');
    for (const rate of [2000, 5000]) await openLoopAgainstFloor(server, floor, rate, seconds, rounds);
    // Warm up all three (JIT, SQLite cache), then interleave their rounds so the machine's noise hits them alike.
    for (const target of [server, bare, floor]) saturate(target.url, 2);
    const full = [];
    const baseline = [];
    const durable = [];
    for (let round = 0; round < rounds; round++) {
      full.push(saturate(server.url, seconds, server.child.pid));
      baseline.push(saturate(bare.url, seconds, bare.child.pid));
      durable.push(saturate(floor.url, seconds, floor.child.pid));
    }
    const fullRps = median(full.map((r) => r.requestsPerSecond));
    const bareRps = median(baseline.map((r) => r.requestsPerSecond));
    const floorRps = median(durable.map((r) => r.requestsPerSecond));
    const cores = (runs) => `server ${fixed(median(runs.map((r) => r.serverCores)))} cores, load generator ${fixed(median(runs.map((r) => r.loadCores)))}`;
    console.log(`\nSaturated, single-event POSTs over 50 connections (${full[0].tool}), median of ${rounds}:`);
    console.log(`  Sightline     : ${fixed(fullRps, 0)} req/s (${cores(full)}; non-2xx: ${full.map((r) => r.non2xx).join(', ')})`);
    console.log(`  bare node:http: ${fixed(bareRps, 0)} req/s (${cores(baseline)})`);
    console.log(`  durable floor : ${fixed(floorRps, 0)} req/s (${cores(durable)}): parse, dedup check, group commit, nothing else (bench/floor-server.mjs)`);
    console.log(`  ratio         : ${fixed(fullRps / bareRps, 3)} of bare (target >= 0.50); the durable floor is ${fixed(floorRps / bareRps, 3)} of bare, Sightline ${fixed(fullRps / floorRps, 3)} of the floor`);
    await waitForProjector(server.url);
    console.log(`  RSS after the saturated rounds: ${fixed(rssMiB(server.child.pid), 0)} MiB`);

    const batches = runLoad({ url: server.url, siteId: benchSiteId, mode: 'closed', connections: 8, durationMs: seconds * 1000, batch: 500 });
    const stored = await scrapeValue(server.url, 'sightline_ingest_events_total');
    await waitForProjector(server.url);
    const accepted = Number((await call(`${server.url}/metrics`)).match(/sightline_ingest_events_total\{outcome="accepted"\} (\d+)/)?.[1] ?? stored);
    console.log(`\n500-event batches over 8 connections: ${fixed(batches.eventsPerSecond, 0)} events/s (${fixed(batches.requestsPerSecond, 0)} req/s) statuses ${JSON.stringify(batches.statuses)}`);
    await stopProcess(server.child);
    const bytes = databaseBytes(freshDir);
    console.log(`Database after the run: ${fixed(bytes / 2 ** 20, 1)} MiB for ${accepted.toLocaleString('en')} events: ${fixed(bytes / accepted, 0)} bytes per stored event (target <= 300), raw JSON kept verbatim`);
    printBreakdown(databaseBreakdown(freshDir));

    const fullSync = await start(join(scratch, 'full'), { SYNCHRONOUS: 'full' });
    saturate(fullSync.url, 2);
    for (const rate of [2000, 5000]) printOpenLoop('fresh, FULL', rate, await openLoop(fullSync, rate, seconds));
    await stopProcess(fullSync.child);

    const backlogDir = join(scratch, 'backlog');
    const seeded = await start(backlogDir);
    await stopProcess(seeded.child);
    const workload = { databasePath: join(backlogDir, 'sightline.db'), siteId: benchSiteId, events: backlog, days: 400, paths: 5000, referrers: 300, countries: 50, visitors: Math.max(1000, Math.round(backlog / 50)), lastDayMs: Date.UTC(2026, 9, 31) };
    const written = await runWorkload('write', workload);
    console.log(`\n${backlog.toLocaleString('en')} events written through the writer's commit in ${fixed(written.elapsedMs / 1000, 1)} s (${fixed(backlog / (written.elapsedMs / 1000), 0)} events/s, nothing derived).`);
    const loaded = await start(backlogDir);
    const catchUp = await waitForProjector(loaded.url);
    console.log(`Projector catch-up from that backlog, on its thread in the server: ${fixed(catchUp, 1)} s, ${fixed(backlog / catchUp, 0)} events/s (target >= 20,000)`);
    saturate(loaded.url, 2);
    await waitForProjector(loaded.url);
    for (const rate of [2000, 5000]) printOpenLoop(`${(backlog / 1e6).toFixed(1)}M events, NORMAL`, rate, await openLoop(loaded, rate, seconds));
    await stopProcess(loaded.child);
    printCatchUp(await projectorCatchUp(scratch, started, backlog, undefined));
  } finally {
    for (const process of started) await stopProcess(process.child).catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
  }
}
