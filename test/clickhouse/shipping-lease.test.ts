// One ClickHouse shipper per data directory (src/clickhouse/shipping-lease.ts). The lease at its edges over a real
// sightline.db: free, renewed by its holder, refused to another until the millisecond it expires, free at once when
// its holder's process on this host is gone. Then the real thing: `sightline clickhouse backfill` is refused (exit 1,
// naming the running server and what to do, nothing shipped) while `sightline serve` ships the same data directory,
// and accepted once it stops; a server killed with SIGKILL leaves a lease that blocks nothing; a lease of another host
// blocks until it expires. In-process: a second server on the same data directory ships nothing until the first
// closes, then takes over. A database another data directory filled is refused to this one's shipper (what the
// lease cannot see). Every wait polls for a state with a bound; no timing decides a test.
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { sql } from '../../src/clickhouse/sql-literal.ts';
import { currentShippingLease, releaseShippingLease, takeShippingLease, type LeaseHolder, type ShippingLeaseRow } from '../../src/clickhouse/shipping-lease.ts';
import { openDatabase, type Db } from '../../src/db/open.ts';
import { databasePath } from '../../src/server.ts';
import { makeTempDir, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { ensureBuilt, parseJsonOutput, runCli, startCli, stopIfRunning, type ServerProcess } from '../cli/cli-helpers.ts';
import { keepWholeLog, startClickHouse, until, type ClickHouseTestServer } from './_server.ts';

vi.setConfig({ testTimeout: 120_000 });

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
let counter = 0;
function pageviews(siteId: string, count: number) {
  return Array.from({ length: count }, () => {
    counter++;
    return {
      id: `00000000-0000-4000-c000-${String(counter).padStart(12, '0')}`,
      site_id: siteId,
      anon_id: `v${counter % 7}`,
      ts: new Date(Date.parse('2026-03-02T08:00:00.000Z') + counter * 60_000).toISOString(),
      type: 'pageview',
      url: `https://shop.example/p${counter % 3}`,
      context: { user_agent: chrome },
    };
  });
}

/** The pid of a process that has exited (and that nothing reuses within the test). */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', '']);
  return done.pid!;
}

describe('the shipping lease at its edges', () => {
  const dir = makeTempDir();
  let db: Db;
  beforeAll(() => {
    db = openDatabase(databasePath(dir));
  });
  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const me: LeaseHolder = { id: 'me', kind: 'backfill', host: hostname(), pid: process.pid };
  const leaseMs = 60_000;
  const t = 1_800_000_000_000;
  const other = (fields: Partial<ShippingLeaseRow>): ShippingLeaseRow => ({ holder_id: 'other', kind: 'server', host: 'another-host', pid: 4242, acquired_at: t - 10_000, expires_at: t + 1000, ...fields });
  const put = (row: ShippingLeaseRow | undefined) => {
    db.prepare('DELETE FROM clickhouse_shipping_lease').run();
    if (row) db.prepare('INSERT INTO clickhouse_shipping_lease (id, holder_id, kind, host, pid, acquired_at, expires_at) VALUES (1, :holder_id, :kind, :host, :pid, :acquired_at, :expires_at)').run(row);
  };

  it.each<[string, ShippingLeaseRow | undefined, number, boolean]>([
    ['free', undefined, t, true],
    ['another host\'s, 1 ms before it expires', other({}), t + 999, false],
    ['another host\'s, the millisecond it expires', other({}), t + 1000, true],
    ['another host\'s, long expired', other({ expires_at: t - 3_600_000 }), t, true],
    ['this host\'s, its process alive (this one, another holder)', other({ host: hostname(), pid: process.pid }), t, false],
    ['this host\'s, its process gone', other({ host: hostname(), pid: deadPid() }), t, true],
    ['another host\'s, a pid that is gone here (it may live there)', other({ pid: deadPid() }), t, false],
    ['its own, renewed before it expires', other({ holder_id: 'me', kind: 'backfill', host: hostname(), pid: process.pid }), t, true],
  ])('%s', (_name, before, now, taken) => {
    put(before);
    const result = takeShippingLease(db, me, now, leaseMs);
    expect(result.held).toBe(taken);
    const after = currentShippingLease(db)!;
    if (taken) {
      expect(after).toMatchObject({ holder_id: 'me', kind: 'backfill', host: hostname(), pid: process.pid, expires_at: now + leaseMs });
      // A renewal keeps when it was first taken; a takeover starts anew.
      expect(after.acquired_at).toBe(before?.holder_id === 'me' ? before.acquired_at : now);
    } else {
      expect(result).toEqual({ held: false, by: before });
      expect(after).toEqual(before);
    }
  });

  it('is given back by its holder only', () => {
    put(undefined);
    expect(takeShippingLease(db, me, t, leaseMs).held).toBe(true);
    releaseShippingLease(db, { ...me, id: 'someone else' });
    expect(currentShippingLease(db)?.holder_id).toBe('me');
    releaseShippingLease(db, me);
    expect(currentShippingLease(db)).toBeUndefined();
    expect(takeShippingLease(db, { ...me, id: 'next' }, t, leaseMs).held).toBe(true);
  });
});

describe('one shipper per data directory, over the real CLI and server', () => {
  let clickhouseServer: ClickHouseTestServer;
  let clickhouse: ClickHouse;
  const dataDir = makeTempDir();
  let serve: ServerProcess | undefined;

  beforeAll(async () => {
    clickhouseServer = await startClickHouse();
    await ensureBuilt();
    // 90 events in the data directory's log, projected, written by a server that is then stopped.
    const server = await startTestServer({ dataDir, clock: manualClock('2026-03-20T12:00:00.000Z') });
    await seedWorkspace(server, 'lease', { sites: ['lease-site'] });
    expect((await server.request('POST', '/s2s/events', { token: 'lease-site', body: pageviews('lease-site', 90) })).status).toBe(202);
    await server.projected();
    await server.close();
    clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'lease_cli', timeoutMs: 10_000 });
  }, 180_000);
  afterAll(async () => {
    await stopIfRunning(serve);
    await clickhouseServer?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  const variables = () => ({ DATA_DIR: dataDir, CLICKHOUSE_URL: clickhouseServer.url, CLICKHOUSE_DATABASE: 'lease_cli', LOG_RETAIN_DAYS: keepWholeLog });
  const lease = () => {
    const db = openDatabase(databasePath(dataDir));
    try {
      return currentShippingLease(db);
    } finally {
      db.close();
    }
  };
  // Without FINAL: physical rows, so an event stored twice would show.
  const shipped = async () => (await clickhouse.query<{ rows: number; distinct: number }>(sql`SELECT count() AS rows, uniqExact(seq) AS distinct FROM events`))[0];

  async function startServe(): Promise<ServerProcess> {
    const started = startCli(['serve', '--port', '0'], variables());
    await started.waitForOutput(/listening on (http:\/\/\S+)/);
    // Its shipping loop holds the lease (a state, polled).
    await until('the server holds the lease', async () => (lease()?.pid === started.child.pid ? true : undefined));
    return started;
  }

  it('backfill is refused while the server ships, ships nothing, and is accepted once the server stopped', async () => {
    serve = await startServe();
    await until('the server shipped the log', async () => ((await shipped())?.rows === 90 ? true : undefined));
    const refused = await runCli(['clickhouse', 'backfill'], variables());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Another shipper is shipping this data directory to ClickHouse: a running server on ${hostname()} (pid ${serve.child.pid}`);
    expect(refused.stderr).toContain('Stop that server first');
    expect(refused.stderr).toContain('(shipper_running)');
    expect(refused.stdout).toBe('');
    const json = await runCli(['clickhouse', 'backfill', '--json'], variables());
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'shipper_running' } });
    expect(await shipped()).toEqual({ rows: 90, distinct: 90 });
    // The server still holds it: the refusals took nothing. Status names it.
    expect(lease()?.pid).toBe(serve.child.pid);
    const status = await runCli(['clickhouse', 'status', '--json'], variables());
    expect(parseJsonOutput(status).shipper).toEqual({ kind: 'server', host: hostname(), pid: serve.child.pid, since: expect.any(String), until: expect.any(String) });

    serve.child.kill('SIGTERM');
    expect((await serve.exited).code).toBe(0);
    // Given back on stop.
    expect(lease()).toBeUndefined();
    const accepted = await runCli(['clickhouse', 'backfill', '--json'], variables());
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(parseJsonOutput(accepted)).toMatchObject({ shipped: 0, database: 'lease_cli' });
    expect(lease()).toBeUndefined();
    const human = await runCli(['clickhouse', 'status'], variables());
    expect(human.stdout).toMatch(/^shipper\s+none \(no server or backfill ships this data directory now\)$/m);
  });

  it('a server killed with SIGKILL leaves a lease that blocks nobody on its host: the next server, then backfill', async () => {
    const killAndKeepLease = async () => {
      const killed = serve!.child.pid;
      serve!.child.kill('SIGKILL');
      expect((await serve!.exited).signal).toBe('SIGKILL');
      // Still recorded, unexpired, but its process is gone.
      expect(lease()).toMatchObject({ kind: 'server', pid: killed, host: hostname() });
      expect(lease()!.expires_at).toBeGreaterThan(Date.now());
    };
    serve = await startServe();
    await killAndKeepLease();
    // The next start takes it over at once (startServe waits until its own pid holds it).
    serve = await startServe();
    await killAndKeepLease();
    const accepted = await runCli(['clickhouse', 'backfill', '--json'], variables());
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(await shipped()).toEqual({ rows: 90, distinct: 90 });
  });

  it('a lease of another host blocks backfill until it expires', async () => {
    const write = (expiresAt: number) => {
      const db = openDatabase(databasePath(dataDir));
      try {
        db.prepare('DELETE FROM clickhouse_shipping_lease').run();
        db.prepare("INSERT INTO clickhouse_shipping_lease (id, holder_id, kind, host, pid, acquired_at, expires_at) VALUES (1, 'elsewhere', 'server', 'another-host', 1, ?, ?)").run(Date.now() - 600_000, expiresAt);
      } finally {
        db.close();
      }
    };
    write(Date.now() + 600_000);
    const refused = await runCli(['clickhouse', 'backfill'], variables());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('a running server on another-host (pid 1');
    write(Date.now() - 1);
    const accepted = await runCli(['clickhouse', 'backfill'], variables());
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(lease()).toBeUndefined();
  });
});

describe('a second server on the same data directory', () => {
  let clickhouseServer: ClickHouseTestServer;
  let first: TestServer | undefined;
  let second: TestServer | undefined;
  const dataDir = makeTempDir();

  beforeAll(async () => {
    clickhouseServer = await startClickHouse();
  }, 120_000);
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await clickhouseServer?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = () =>
    startTestServer({
      dataDir,
      clock: manualClock('2026-03-20T12:00:00.000Z'),
      env: { CLICKHOUSE_URL: clickhouseServer.url, CLICKHOUSE_DATABASE: 'lease_servers', LOG_RETAIN_DAYS: keepWholeLog },
      clickhouseShipping: { intervalMs: 200, backoffMs: 50, maxBackoffMs: 400 },
    });
  const metric = async (server: TestServer, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec((await server.request('GET', '/metrics')).text)?.[1]);

  // Bounds of two minutes: on a loaded machine (load 17 in a full run) two servers' threads start, create the tables
  // and take turns slowly; each wait is for a state, never a timing.
  const bound = 120_000;
  it('ships nothing while the first one ships, and takes over once it closed', { timeout: 360_000 }, async () => {
    first = await start();
    await seedWorkspace(first, 'two', { sites: ['two-site'] });
    expect((await first.request('POST', '/s2s/events', { token: 'two-site', body: pageviews('two-site', 40) })).status).toBe(202);
    await first.projected();
    await until('the first server shipped 40', async () => ((await metric(first!, 'sightline_clickhouse_shipped_total')) === 40 ? true : undefined), bound);
    second = await start();
    // Refused over and over (each refusal counts as a failed attempt), never shipping.
    await until('the second server was refused twice', async () => ((await metric(second!, 'sightline_clickhouse_errors_total')) >= 2 ? true : undefined), bound);
    expect(await metric(second, 'sightline_clickhouse_shipped_total')).toBe(0);
    await first.close();
    first = undefined;
    expect((await second.request('POST', '/s2s/events', { token: 'two-site', body: pageviews('two-site', 15) })).status).toBe(202);
    await second.projected();
    await until('the second server shipped the 15 new events', async () => ((await metric(second!, 'sightline_clickhouse_shipped_total')) === 15 ? true : undefined), bound);
    const clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'lease_servers', timeoutMs: 10_000 });
    const [row] = await clickhouse.query<{ rows: number; distinct: number }>(sql`SELECT count() AS rows, uniqExact(seq) AS distinct FROM events`);
    expect(row).toEqual({ rows: 55, distinct: 55 });
  });
});

describe('a ClickHouse database filled from another data directory', () => {
  let clickhouseServer: ClickHouseTestServer;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    clickhouseServer = await startClickHouse();
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) await server.close();
    await clickhouseServer?.close();
  });

  /** A data directory of its own with `count` events (seqs 1 to count), projected. */
  async function dataDirectoryWith(name: string, count: number): Promise<TestServer> {
    const server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') });
    servers.push(server);
    await seedWorkspace(server, name, { sites: [`${name}-site`] });
    expect((await server.request('POST', '/s2s/events', { token: `${name}-site`, body: pageviews(`${name}-site`, count) })).status).toBe(202);
    await server.projected();
    return server;
  }

  it.each([
    ['a shorter log', 10, /holds events through seq 30, past the end of this data directory's log \(seq 10\).*give each data directory its own CLICKHOUSE_DATABASE/],
    ['a longer log', 50, /holds another event than this data directory's under seq 30.*give each data directory its own CLICKHOUSE_DATABASE/],
  ])('is refused to %s, which ships nothing; its own data directory goes on', async (name, count, message) => {
    const database = `foreign_${count}`;
    const clickhouse = createClickHouse({ url: clickhouseServer.url, database, timeoutMs: 10_000 });
    await applyClickHouseSchema(clickhouse);
    const owner = await dataDirectoryWith(`own${count}`, 30);
    expect((await createShipper({ db: owner.db, clickhouse, batchSize: 20 }).shipAll()).events).toBe(30);
    const other = await dataDirectoryWith(`other${count}`, count);
    await expect(createShipper({ db: other.db, clickhouse }).shipBatch()).rejects.toThrow(message);
    const held = async () => (await clickhouse.query<{ rows: number; distinct: number }>(sql`SELECT count() AS rows, uniqExact(seq) AS distinct FROM events`))[0];
    expect(await held()).toEqual({ rows: 30, distinct: 30 });
    // The owner's next events ship as before (a new shipper checks the position once: it is its own).
    expect((await owner.request('POST', '/s2s/events', { token: `own${count}-site`, body: pageviews(`own${count}-site`, 5) })).status).toBe(202);
    await owner.projected();
    expect((await createShipper({ db: owner.db, clickhouse }).shipAll()).events).toBe(5);
    expect(await held()).toEqual({ rows: 35, distinct: 35 });
  });
});
