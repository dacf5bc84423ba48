// The ClickHouse parts of `npm run bench -- clickhouse`, run in a child process (bench/clickhouse.mjs bundles it, so
// the TypeScript of src/ resolves as the server's does). One JSON object on stdout per command:
//   load URL DATABASE EVENTS DAYS LASTDAYMS  the bulk data set (bench/clickhouse-bulk.ts), timed
//   ship URL DATABASE SQLITE EVENTS BATCH    the real shipper from a SQLite backlog, timed; bytes per event
//   reads URL DATABASE SQLITE RUNS PID       the read model's questions over both stores, medians
import { readFileSync } from 'node:fs';
import { createClickHouse } from '../src/clickhouse/client.ts';
import { applyClickHouseSchema } from '../src/clickhouse/schema.ts';
import { createShipper } from '../src/clickhouse/shipper.ts';
import { identifier, sql, type SqlText } from '../src/clickhouse/sql-literal.ts';
import { readShippingBatch } from '../src/clickhouse/sqlite-source.ts';
import { openDatabase } from '../src/db/open.ts';
import { createClickHouseReadModel } from '../src/read-model/clickhouse/clickhouse-read-model.ts';
import type { ReadModel } from '../src/read-model/read-model.ts';
import { createSqliteReadModel } from '../src/read-model/sqlite/sqlite-read-model.ts';
import { dayMs } from '../src/vocabulary/periods.ts';
import { loadBulk } from './clickhouse-bulk.ts';

const [command, url, database, ...rest] = process.argv.slice(2);
const clickhouse = createClickHouse({ url: url!, database: database!, timeoutMs: 4 * 3600_000 });
const progress = (text: string) => process.stderr.write(`  ${text}\n`);

if (command === 'load') {
  // Resumes a load that was stopped (the parts done are recorded); a deadline (epoch ms) stops it between parts.
  const [events, days, lastDayMs, deadlineMs] = rest.map(Number);
  await applyClickHouseSchema(clickhouse);
  const started = performance.now();
  const loaded = await loadBulk(
    clickhouse,
    { siteId: 'bench', events: events!, days: days!, lastDayMs: lastDayMs! },
    (done, part, parts) => progress(`${(done / 1e6).toFixed(1)}M events (${part}/${parts} parts) in ${((performance.now() - started) / 1000).toFixed(0)} s`),
    deadlineMs || Infinity,
  );
  console.log(JSON.stringify({ ...loaded, elapsedMs: performance.now() - started }));
}

if (command === 'ship') {
  // The real shipper (batches of BATCH) from the SQLite data set's log into an empty database, until EVENTS are in.
  const [sqlitePath, eventsText, batchText] = rest;
  const limit = Number(eventsText);
  const db = openDatabase(sqlitePath!, { readonly: true });
  await clickhouse.exec(sql`DROP DATABASE IF EXISTS ${identifier(database!)}`, { database: null });
  await applyClickHouseSchema(clickhouse);
  const shipper = createShipper({ db, clickhouse, batchSize: Number(batchText) });
  // The synchronous part of one batch (the SQLite read and its rows' JSON): what the shipping thread now carries.
  const syncStarted = performance.now();
  const first = readShippingBatch(db, 0, Number(batchText));
  const jsonBytes = [...first.events, ...first.visits].reduce((sum, row) => sum + JSON.stringify(row).length, 0);
  const syncBatchMs = performance.now() - syncStarted;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let events = 0;
  let batches = 0;
  while (events < limit) {
    const batch = await shipper.shipBatch();
    if (batch.events === 0) break;
    events += batch.events;
    batches++;
    if (batches % 10 === 0) progress(`${events.toLocaleString('en')} events shipped in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const bytes = async () =>
    Object.fromEntries(
      (
        await clickhouse.query<{ table: string; bytes: number; rows: number }>(
          sql`SELECT table, sum(bytes_on_disk) AS bytes, sum(rows) AS rows FROM system.parts WHERE database = ${database!} AND active AND table IN ('events', 'signed_visits') GROUP BY table`,
        )
      ).map((row) => [row.table, { bytes: row.bytes, rows: row.rows }]),
    );
  const afterShipping = await bytes();
  await clickhouse.exec(sql`OPTIMIZE TABLE events FINAL`);
  await clickhouse.exec(sql`OPTIMIZE TABLE signed_visits FINAL`);
  const afterOptimize = await bytes();
  db.close();
  console.log(JSON.stringify({ events, batches, elapsedMs, shipperCpuMs: (cpu.user + cpu.system) / 1000, syncBatchMs, syncBatchEvents: first.events.length, jsonBytes, afterShipping, afterOptimize, version: await clickhouse.version() }));
}

/**
 * Median, min and max of `runs` timed calls after one warm-up call; fewer runs when the warm-up shows they would take
 * more than `budgetMs` in all (a question of a minute on a shared machine), at least one. `runs` says how many.
 */
async function timed(runs: number, call: () => Promise<unknown>, budgetMs = Number(process.env.BENCH_QUESTION_BUDGET_MS ?? 60_000)): Promise<{ median: number; min: number; max: number; runs: number; error?: string }> {
  try {
    const warmStarted = performance.now();
    await call();
    const warmMs = performance.now() - warmStarted;
    runs = Math.max(1, Math.min(runs, Math.floor(budgetMs / Math.max(1, warmMs))));
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      await call();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return { median: times[Math.floor(times.length / 2)]!, min: times[0]!, max: times[times.length - 1]!, runs };
  } catch (error) {
    return { median: NaN, min: NaN, max: NaN, runs: 0, error: String(error instanceof Error ? error.message : error).slice(0, 300) };
  }
}

/** A read model whose every question says it is not answered over ClickHouse (what the bench then measures in SQL). */
class NotOverClickHouse extends Error {}
const notOverClickHouse = new Proxy({} as ReadModel, {
  get: (_target, name) => () => Promise.reject(new NotOverClickHouse(`${String(name)} is not answered over ClickHouse in this build`)),
});

if (command === 'reads') {
  // The read model's questions over ClickHouse (this database) and over SQLite (the data set's file), medians of RUNS;
  // ClickHouse's resident memory sampled every 50 ms while its questions run (PID).
  const [sqlitePath, runsText, pidText, lastDayText] = rest;
  const runs = Number(runsText);
  const lastDay = Number(lastDayText) / dayMs;
  // '-': ClickHouse only (to time a change to its reads alone).
  const db = sqlitePath === '-' ? undefined : openDatabase(sqlitePath!, { readonly: true });
  // The ClickHouse model consults SQLite for retention cuts and the unshipped tail: the data set's file, or an empty one.
  const clickhouseModel = createClickHouseReadModel({ clickhouse, waitForShipping: async () => true, deletionsOf: () => [], embedded: notOverClickHouse, db: db ?? openDatabase(':memory:') });
  const [site] = (db?.prepare('SELECT id, workspace_id FROM sites').all() ?? [{ id: 'bench', workspace_id: 'bench' }]) as { id: string; workspace_id: string }[];
  const sqliteModel = db ? createSqliteReadModel({ db, waitForProjection: async () => true }) : notOverClickHouse;
  const scope = { siteIds: [site!.id], workspaceId: site!.workspace_id };
  const selection = (days: number) => ({ scope, range: { fromDay: lastDay - days + 1, toDay: lastDay }, filters: {}, withInternal: false });
  const funnelSteps = [
    { type: 'pageview', path: '/pricing', prefix: false, props: null },
    { type: 'signup_started', path: null, prefix: false, props: null },
    { type: 'signup_completed', path: null, prefix: false, props: null },
    { type: 'purchase', path: null, prefix: false, props: null },
  ];
  const questions: [string, (model: ReadModel) => Promise<unknown>, ((days: number) => SqlText) | null][] = [];
  for (const days of [30, 365]) {
    questions.push([`${days} days summary`, (model) => model.summary({ ...selection(days), visitors: true }), null]);
    questions.push([`${days} days pages top 10`, (model) => model.ranking({ ...selection(days), by: 'path', order: 'pageviews', offset: 0, limit: 10 }), null]);
    questions.push([`${days} days sources`, (model) => model.ranking({ ...selection(days), by: 'source', order: 'visits', offset: 0, limit: 10 }), null]);
  }
  questions.push([
    '30 days funnel, 4 steps',
    (model) => model.funnelPopulation({ ...selection(30), steps: funnelSteps, afterRangeMs: 0, breakdown: null, maxEvents: 5_000_000, withSeqs: false }),
    (days) => funnelSql(scope.siteIds[0]!, (lastDay - days + 1) * dayMs, (lastDay + 1) * dayMs),
  ]);
  questions.push([
    '30 days last_touch attribution',
    (model) => model.conversions({ scope, ranges: [{ startMs: (lastDay - 29) * dayMs, endMs: (lastDay + 1) * dayMs, eventId: null }], lookbackMs: 30 * dayMs }),
    (days) => lastTouchSql(scope.siteIds[0]!, (lastDay - days + 1) * dayMs, (lastDay + 1) * dayMs, 30 * dayMs),
  ]);
  let peakRssMiB = 0;
  const sampler = setInterval(() => {
    try {
      const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pidText}/status`, 'utf8'))?.[1] ?? 0);
      peakRssMiB = Math.max(peakRssMiB, kib / 1024);
    } catch {
      // the server is gone: nothing to sample
    }
  }, 50);
  const rows = [];
  const only = process.env.BENCH_ONLY;
  for (const [name, ask, direct] of questions) {
    if (only && !name.includes(only)) continue;
    let clickhouseTiming = await timed(runs, () => ask(clickhouseModel));
    let how = 'read model';
    // The composed model takes what ClickHouse does not answer from `embedded`, whose methods this stand-in lacks.
    if (clickhouseTiming.error && /not answered over ClickHouse|is not a function/.test(clickhouseTiming.error) && direct) {
      // Not in the ClickHouse read model yet (another branch adds it): the equivalent query, timed directly.
      clickhouseTiming = await timed(runs, () => clickhouse.query(direct(30)));
      how = 'direct SQL';
    }
    const sqliteTiming = await timed(runs, () => ask(sqliteModel));
    rows.push({ name, clickhouse: clickhouseTiming, how, sqlite: sqliteTiming });
    progress(`${name}: ClickHouse ${clickhouseTiming.median.toFixed(0)} ms (${how}), SQLite ${sqliteTiming.median.toFixed(0)} ms`);
  }
  clearInterval(sampler);
  const [counts] = await clickhouse.query<{ events: number; visits: number }>(sql`SELECT (SELECT count() FROM events) AS events, (SELECT sum(sign) FROM signed_visits) AS visits`);
  const sqliteEvents = db ? (db.prepare('SELECT count(*) FROM events').pluck().get() as number) : 0;
  db?.close();
  console.log(JSON.stringify({ rows, peakRssMiB, clickhouseEvents: counts!.events, clickhouseVisits: counts!.visits, sqliteEvents }));
}

/** The 4-step funnel's people per step over ClickHouse, within a day of the first step (windowFunnel). */
function funnelSql(siteId: string, startMs: number, endMs: number): SqlText {
  return sql`SELECT level, count() AS people FROM (
      SELECT anon_id, windowFunnel(86400)(toDateTime(intDiv(ts, 1000)), type = 'pageview' AND path = '/pricing', type = 'signup_started',
        type = 'signup_completed', type = 'purchase') AS level
      FROM events WHERE site_id = ${siteId} AND ts >= ${startMs} AND ts < ${endMs} AND is_bot = 0 AND is_internal = 0
        AND type IN ('pageview', 'signup_started', 'signup_completed', 'purchase')
      GROUP BY anon_id) GROUP BY level ORDER BY level`;
}

/** Each purchase of the range credited to the source of the buyer's last visit started before it (within the lookback). */
function lastTouchSql(siteId: string, startMs: number, endMs: number, lookbackMs: number): SqlText {
  return sql`SELECT source, count() AS conversions FROM (
      SELECT anon_id, ts, argMax(source, start_ts) AS source FROM (
        SELECT anon_id, ts FROM events WHERE site_id = ${siteId} AND type = 'purchase' AND ts >= ${startMs} AND ts < ${endMs} AND is_bot = 0)
      ALL INNER JOIN (
        SELECT anon_id, start_ts, source FROM signed_visits WHERE site_id = ${siteId} AND start_ts >= ${startMs - lookbackMs} AND start_ts < ${endMs}
        GROUP BY anon_id, is_internal, start_ts, end_ts, source HAVING sum(sign) > 0) USING anon_id
      WHERE start_ts <= ts GROUP BY anon_id, ts) GROUP BY source ORDER BY conversions DESC`;
}
