// `sightline clickhouse init|status|backfill` and `doctor` on the bundled CLI against a real clickhouse-server: init
// creates the tables and is idempotent; status reports the version, the lag in events before and after shipping, rows
// and bytes per event; backfill ships the log exactly once and resumes where ClickHouse stands; doctor checks the
// connection and the schema version; a missing or unreachable ClickHouse is a clear error with exit 1.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClickHouse } from '../../src/clickhouse/client.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { sql } from '../../src/clickhouse/sql-literal.ts';
import { clickHouseSchemaSections, latestClickHouseSchemaVersion as latest } from '../../src/clickhouse/schema.ts';
import { makeTempDir, seedWorkspace, startTestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { ensureBuilt, parseJsonOutput, runCli } from '../cli/cli-helpers.ts';
import { freePort, startClickHouse, type ClickHouseTestServer } from './_server.ts';
import { openDatabase } from '../../src/db/open.ts';
import { databasePath } from '../../src/server.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

vi.setConfig({ testTimeout: 120_000 });

describe('sightline clickhouse', () => {
  let clickhouseServer: ClickHouseTestServer;
  const dataDir = makeTempDir();

  beforeAll(async () => {
    clickhouseServer = await startClickHouse();
    await ensureBuilt();
    // 120 events in the data directory's log, projected, written by a server that is then stopped.
    const server = await startTestServer({ dataDir, clock: manualClock('2026-03-20T12:00:00.000Z') });
    await seedWorkspace(server, 'cli', { sites: ['cli-site'] });
    const base = Date.parse('2026-03-02T08:00:00.000Z');
    const body = Array.from({ length: 120 }, (_, index) => ({
      id: `00000000-0000-4000-b000-${String(index + 1).padStart(12, '0')}`,
      site_id: 'cli-site',
      anon_id: `v${index % 9}`,
      ts: new Date(base + index * 60_000).toISOString(),
      type: 'pageview',
      url: `https://shop.example/p${index % 4}`,
      context: { user_agent: chrome },
    }));
    expect((await server.request('POST', '/s2s/events', { token: 'cli-site', body })).status).toBe(202);
    await server.projected();
    await server.close();
  }, 180_000);
  afterAll(async () => {
    await clickhouseServer?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  const env = (database: string) => ({ DATA_DIR: dataDir, CLICKHOUSE_URL: clickhouseServer.url, CLICKHOUSE_DATABASE: database });

  it('init creates the tables, and a second init changes nothing', async () => {
    const first = await runCli(['clickhouse', 'init', '--json'], env('cli_init'));
    expect(first.code).toBe(0);
    // Every section of schema.sql, in order (their number grows with the releases: not written here).
    const every = clickHouseSchemaSections.map((section) => section.version);
    expect(parseJsonOutput(first)).toEqual({ database: 'cli_init', applied: every, schema_version: latest });
    const again = await runCli(['clickhouse', 'init'], env('cli_init'));
    expect(again).toMatchObject({ code: 0, stdout: `ClickHouse database cli_init is up to date (schema version ${latest})\n` });
    const clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'cli_init' });
    const tables = await clickhouse.query<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = 'cli_init' ORDER BY name`);
    expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['events', 'identity_bindings', 'schema_versions', 'signed_visits']));
    expect(await clickhouse.query(sql`SELECT version FROM schema_versions ORDER BY version`)).toEqual(every.map((version) => ({ version })));
  });

  it('flags win over the variables', async () => {
    const result = await runCli(['clickhouse', 'init', '--json', '--clickhouse-url', clickhouseServer.url, '--clickhouse-database', 'cli_flags'], { DATA_DIR: dataDir, CLICKHOUSE_URL: 'http://127.0.0.1:1' });
    expect(result.code).toBe(0);
    expect(parseJsonOutput(result)).toMatchObject({ database: 'cli_flags', applied: clickHouseSchemaSections.map((section) => section.version) });
  });

  it('status shows the lag before shipping and none after, rows, bytes per event and the server version', async () => {
    expect((await runCli(['clickhouse', 'init'], env('cli_status'))).code).toBe(0);
    const before = parseJsonOutput(await runCli(['clickhouse', 'status', '--json'], env('cli_status')));
    expect(before).toEqual({
      server_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      database: 'cli_status',
      schema_version: latest,
      latest_schema_version: latest,
      shipped_through: 0,
      lag_events: 120,
      event_rows: 0,
      visit_rows: 0,
      events_bytes: 0,
      visits_bytes: 0,
      bytes_per_event: null,
      shipper: null,
    });
    const db = openDatabase(databasePath(dataDir));
    try {
      await createShipper({ db, clickhouse: createClickHouse({ url: clickhouseServer.url, database: 'cli_status' }), batchSize: 50 }).shipAll();
      const visits = db.prepare('SELECT count(*) FROM sessions').pluck().get() as number;
      const after = parseJsonOutput(await runCli(['clickhouse', 'status', '--json'], env('cli_status')));
      expect(after).toMatchObject({ lag_events: 0, event_rows: 120, visit_rows: expect.any(Number), shipped_through: expect.any(Number) });
      expect(after.visit_rows).toBeGreaterThanOrEqual(visits);
      expect(after.events_bytes).toBeGreaterThan(0);
      expect(after.bytes_per_event).toBeCloseTo((after.events_bytes + after.visits_bytes) / 120, 1);
    } finally {
      db.close();
    }
    const human = await runCli(['clickhouse', 'status'], env('cli_status'));
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^lag \(events\)\s+0$/m);
    expect(human.stdout).toMatch(/^event rows\s+120$/m);
    expect(human.stdout).toMatch(/^server version\s+\d+\.\d+/m);
  });

  it('status on a database init has not created yet says so', async () => {
    const result = parseJsonOutput(await runCli(['clickhouse', 'status', '--json'], env('cli_never')));
    expect(result).toMatchObject({ schema_version: 0, lag_events: 120, event_rows: 0 });
    const human = await runCli(['clickhouse', 'status'], env('cli_never'));
    expect(human.stdout).toContain('run sightline clickhouse init');
  });

  it.each([
    ['no CLICKHOUSE_URL', { DATA_DIR: dataDir }, ['init'], /No ClickHouse configured: set CLICKHOUSE_URL/],
    ['an invalid database name', { DATA_DIR: dataDir, CLICKHOUSE_URL: 'http://127.0.0.1:8123', CLICKHOUSE_DATABASE: 'a-b' }, ['init'], /CLICKHOUSE_DATABASE: must be a name/],
  ])('refuses with %s', async (_name, variables, command, message) => {
    const result = await runCli(['clickhouse', ...command], variables);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
  });

  it('an unreachable ClickHouse is an error naming it, for init and status', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    for (const command of ['init', 'status']) {
      const result = await runCli(['clickhouse', command], { DATA_DIR: dataDir, CLICKHOUSE_URL: url });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`ClickHouse at ${url}`);
    }
  });

  const shippedCount = async (database: string) => {
    const clickhouse = createClickHouse({ url: clickhouseServer.url, database });
    // Without FINAL: physical rows, so an event sent twice would show.
    const [row] = await clickhouse.query<{ rows: number; distinct: number }>(sql`SELECT count() AS rows, uniqExact(seq) AS distinct FROM events`);
    return row;
  };

  it('backfill ships the whole log once, and a second run ships nothing', async () => {
    const first = await runCli(['clickhouse', 'backfill', '--json', '--batch', '50'], env('cli_backfill'));
    expect(first.code).toBe(0);
    expect(parseJsonOutput(first)).toMatchObject({ database: 'cli_backfill', shipped: 120, batches: 3, not_projected: 0 });
    expect(await shippedCount('cli_backfill')).toEqual({ rows: 120, distinct: 120 });
    const again = await runCli(['clickhouse', 'backfill'], env('cli_backfill'));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^ClickHouse database cli_backfill already holds every projected event \(through seq \d+\)$/m);
    expect(await shippedCount('cli_backfill')).toEqual({ rows: 120, distinct: 120 });
  });

  it('backfill resumes after an interrupted run from what ClickHouse holds', async () => {
    const db = openDatabase(databasePath(dataDir));
    try {
      const clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'cli_resume' });
      expect((await runCli(['clickhouse', 'init'], env('cli_resume'))).code).toBe(0);
      // A run that stopped after its first batch of 50.
      expect((await createShipper({ db, clickhouse, batchSize: 50 }).shipBatch()).events).toBe(50);
    } finally {
      db.close();
    }
    const rest = await runCli(['clickhouse', 'backfill', '--json'], env('cli_resume'));
    expect(parseJsonOutput(rest)).toMatchObject({ shipped: 70, batches: 1 });
    expect(await shippedCount('cli_resume')).toEqual({ rows: 120, distinct: 120 });
  });

  it.each([
    ['1', 0, 120],
    ['1000000', 0, 1],
    ['0', 1, 'must be at least 1'],
    ['1000001', 1, 'must be at most 1000000'],
    ['5e3', 1, 'must be a whole number of events'],
  ] as const)('backfill --batch %s', async (batch, code, expected) => {
    const database = `cli_batch_${batch.replace(/\W/g, '_')}`;
    const result = await runCli(['clickhouse', 'backfill', '--json', '--batch', batch], env(database));
    expect(result.code).toBe(code);
    if (typeof expected === 'number') expect(parseJsonOutput(result)).toMatchObject({ shipped: 120, batches: expected });
    else expect(result.stderr).toContain(expected);
  });

  it('doctor checks the connection and the schema version', async () => {
    const before = await runCli(['doctor', '--json'], env('cli_doctor'));
    expect(before.code).toBe(1);
    expect(parseJsonOutput(before).checks).toEqual(
      expect.arrayContaining([
        { name: 'clickhouse', ok: true, detail: expect.stringMatching(new RegExp(`^${clickhouseServer.url} \\(server \\d+\\.\\d+`)) },
        { name: 'clickhouse schema version', ok: false, detail: `0 in cli_doctor (this release: ${latest}): run sightline clickhouse init` },
      ]),
    );
    expect((await runCli(['clickhouse', 'init'], env('cli_doctor'))).code).toBe(0);
    const after = await runCli(['doctor'], env('cli_doctor'));
    expect(after.stdout).toMatch(new RegExp(`^clickhouse schema version\\s+ok\\s+${latest} in cli_doctor \\(this release: ${latest}\\)$`, 'm'));
    const unreachable = `http://127.0.0.1:${await freePort()}`;
    const down = await runCli(['doctor', '--json'], { DATA_DIR: dataDir, CLICKHOUSE_URL: unreachable });
    expect(down.code).toBe(1);
    expect(parseJsonOutput(down).checks).toContainEqual({ name: 'clickhouse', ok: false, detail: expect.stringContaining(`ClickHouse at ${unreachable}`) });
  });
});
