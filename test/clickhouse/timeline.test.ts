// Identity bindings reach ClickHouse exactly once, and a user's timeline read over ClickHouse equals the SQLite
// timeline field for field: with every event shipped, with a tail ClickHouse does not hold yet (a device bound only
// by an unshipped event, events of a known device past the shipped position), at every page size, and with a GDPR
// deletion pending (left out at once) and carried out (the bindings' rows deleted there too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { carryDeletions } from '../../src/clickhouse/deletion-mutations.ts';
import { allPendingDeletions, pendingDeletionsOf, recordSubjectDeletion } from '../../src/clickhouse/deletions.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { sql } from '../../src/clickhouse/sql-literal.ts';
import { createClickHouseReadModel } from '../../src/read-model/clickhouse/clickhouse-read-model.ts';
import type { ReadModel } from '../../src/read-model/read-model.ts';
import type { TimelinePage } from '../../src/read-model/person-questions.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { startClickHouse, until, type ClickHouseTestServer } from './_server.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const base = Date.parse('2026-03-05T08:00:00.000Z');
const minute = 60_000;
let counter = 0;
function wire(siteId: string, anonId: string, at: number, extra: Record<string, unknown> = {}) {
  counter++;
  return {
    id: `00000000-0000-4000-d000-${String(counter).padStart(12, '0')}`,
    site_id: siteId,
    anon_id: anonId,
    ts: new Date(at).toISOString(),
    type: counter % 4 === 0 ? 'login' : 'pageview',
    url: `https://shop.example/t${counter % 5}`,
    context: { user_agent: counter % 9 === 0 ? googlebot : chrome },
    ...extra,
  };
}

describe('identity bindings and timelines over ClickHouse', () => {
  let server: TestServer;
  let clickhouseServer: ClickHouseTestServer;
  let databases = 0;

  async function store(siteId: string, events: Record<string, unknown>[]) {
    const response = await server.request('POST', '/s2s/events', { token: siteId, body: events });
    expect(response.status, response.text).toBe(202);
    await server.projected();
  }

  async function freshDatabase(): Promise<ClickHouse> {
    const clickhouse = createClickHouse({ url: clickhouseServer.url, database: `timeline_${++databases}`, timeoutMs: 10_000 });
    await applyClickHouseSchema(clickhouse);
    return clickhouse;
  }

  const readModelOver = (clickhouse: ClickHouse): ReadModel =>
    createClickHouseReadModel({ clickhouse, waitForShipping: async () => true, deletionsOf: (siteIds) => pendingDeletionsOf(server.db, siteIds), embedded: server.app.readModel, db: server.db });

  /** Every page of a user's timeline at a page size, following nextBeforeMs. */
  async function allPages(readModel: ReadModel, siteId: string, userId: string, limit: number): Promise<TimelinePage[]> {
    const pages: TimelinePage[] = [];
    let beforeMs: number | undefined;
    for (;;) {
      const page = await readModel.timeline({ siteId, userId, beforeMs, limit });
      pages.push(page);
      if (page.unknownUser || page.nextBeforeMs === null || pages.length > 50) return pages;
      beforeMs = page.nextBeforeMs;
    }
  }

  async function expectSameTimelines(readModel: ReadModel) {
    for (const [siteId, userId] of [['tl-a', 'user-1'], ['tl-a', 'user-2'], ['tl-a', 'nobody'], ['tl-b', 'user-1']] as const) {
      for (const limit of [1, 2, 3, 7, 100]) {
        expect(await allPages(readModel, siteId, userId, limit), `${siteId} ${userId} limit ${limit}`).toEqual(await allPages(server.app.readModel, siteId, userId, limit));
      }
    }
  }

  /** The bindings ClickHouse holds, as reads see them (first binding event per binding). */
  const shippedBindings = async (clickhouse: ClickHouse) =>
    clickhouse.query<{ site_id: string; user_id: string; anon_id: string; seq: number }>(
      sql`SELECT site_id, user_id, anon_id, min(seq) AS seq FROM identity_bindings GROUP BY site_id, user_id, anon_id ORDER BY site_id, user_id, anon_id`,
    );
  /** The same from the embedded log: every binding and the seq of the first event that made it. */
  const storedBindings = () =>
    server.db
      .prepare('SELECT site_id, user_id, anon_id, min(seq) AS seq FROM events WHERE user_id IS NOT NULL GROUP BY site_id, user_id, anon_id ORDER BY site_id, user_id, anon_id')
      .all();

  beforeAll(async () => {
    [server, clickhouseServer] = await Promise.all([startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') }), startClickHouse()]);
    await seedWorkspace(server, 'tl', { sites: ['tl-a', 'tl-b'] });
    // user-1 on three devices of site A (d1, d2 and d3, d3 bound twice), user-2 on one; the same user id on site B is
    // another person. Events of one millisecond on two devices, a crawler's user agent, events naming nobody.
    const events: Record<string, unknown>[] = [];
    for (let index = 0; index < 40; index++) {
      const device = ['d1', 'd2', 'd3', 'd4'][index % 4]!;
      const at = base + Math.floor(index / 2) * 3 * minute;
      const user = index % 6 === 0 ? (device === 'd4' ? 'user-2' : 'user-1') : undefined;
      events.push(wire('tl-a', device, at, user ? { user_id: user } : {}));
    }
    await store('tl-a', events);
    await store('tl-b', [wire('tl-b', 'b1', base, { user_id: 'user-1' }), wire('tl-b', 'b1', base + minute)]);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await clickhouseServer?.close();
  });

  it('ships each binding with the first event that made it, once, through a crash between its insert and the events\'', async () => {
    const clickhouse = await freshDatabase();
    let crashes = 0;
    const crashing = createShipper({
      db: server.db,
      clickhouse,
      batchSize: 7,
      beforeEventsInsert: () => {
        if (++crashes === 2) throw new Error('crash after the bindings insert');
      },
    });
    await crashing.shipBatch();
    await expect(crashing.shipBatch()).rejects.toThrow('crash after the bindings insert');
    // The second batch's bindings landed without its events: it is sent again by the next shipper.
    const shipped = await createShipper({ db: server.db, clickhouse, batchSize: 7 }).shipAll();
    expect(shipped.events).toBe(42 - 7);
    // The crashed batch's binding rows were sent again (they may or may not be merged yet): the aggregate is exact.
    expect(await shippedBindings(clickhouse)).toEqual(storedBindings());
    await expectSameTimelines(readModelOver(clickhouse));
  });

  it('a timeline equals the SQLite one with part of the log not shipped yet, a device bound only there', async () => {
    const clickhouse = await freshDatabase();
    await createShipper({ db: server.db, clickhouse }).shipAll();
    // Stored after shipping: a new device of user-1 (bound only by an unshipped event), more events of d1 and d4.
    await store('tl-a', [
      wire('tl-a', 'd5', base + 200 * minute, { user_id: 'user-1' }),
      wire('tl-a', 'd5', base + 201 * minute),
      wire('tl-a', 'd1', base + 201 * minute),
      wire('tl-a', 'd4', base + 10 * minute),
    ]);
    const readModel = readModelOver(clickhouse);
    const newest = await readModel.timeline({ siteId: 'tl-a', userId: 'user-1', beforeMs: undefined, limit: 3 });
    expect(newest.unknownUser === false && newest.events.map((event) => event.anonId)).toEqual(['d1', 'd5', 'd5']);
    await expectSameTimelines(readModel);
  });

  it('a GDPR deletion leaves a device out at once, and its bindings leave ClickHouse with its events', async () => {
    const clickhouse = await freshDatabase();
    await createShipper({ db: server.db, clickhouse }).shipAll();
    const readModel = readModelOver(clickhouse);
    recordSubjectDeletion(server.db, 'tl-a', ['d2', 'd4'], Date.now());
    const page = await readModel.timeline({ siteId: 'tl-a', userId: 'user-1', beforeMs: undefined, limit: 100 });
    expect(page.unknownUser === false && [...new Set(page.events.map((event) => event.anonId))].sort()).toEqual(['d1', 'd3', 'd5']);
    // user-2's only device was deleted: no event names them any more.
    expect(await readModel.timeline({ siteId: 'tl-a', userId: 'user-2', beforeMs: undefined, limit: 100 })).toEqual({ unknownUser: true });
    await until('the mutations finished', async () => ((await carryDeletions(server.db, clickhouse, Number.MAX_SAFE_INTEGER, Date.now())) === 1 ? true : undefined));
    expect(allPendingDeletions(server.db)).toEqual([]);
    const [left] = await clickhouse.query<{ n: number }>(sql`SELECT count() AS n FROM identity_bindings WHERE anon_id IN ('d2', 'd4')`);
    expect(left!.n).toBe(0);
    expect(await readModel.timeline({ siteId: 'tl-a', userId: 'user-2', beforeMs: undefined, limit: 100 })).toEqual({ unknownUser: true });
  });
});
