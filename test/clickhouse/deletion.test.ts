// Deletion reaches ClickHouse: a GDPR delete and a site deletion stop counting in ClickHouse's answers at once (the
// pending deletion is left out of every read, before any mutation ran), then the shipping loop deletes the rows there
// (ALTER … DELETE) and forgets the pending record; events stored after the deletion are new data and count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { carryDeletions } from '../../src/clickhouse/deletion-mutations.ts';
import { allPendingDeletions, recordSubjectDeletion } from '../../src/clickhouse/deletions.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper } from '../../src/clickhouse/shipper.ts';
import { sql } from '../../src/clickhouse/sql-literal.ts';
import { pendingDeletionsOf } from '../../src/clickhouse/deletions.ts';
import { createClickHouseReportReads } from '../../src/read-model/clickhouse/report-reads.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { keepWholeLog, startClickHouse, until, type ClickHouseTestServer } from './_server.ts';

const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const day = '2026-03-02';
let counter = 0;
function pageviews(siteId: string, anonId: string, count: number) {
  return Array.from({ length: count }, (_, index) => {
    counter++;
    return {
      id: `00000000-0000-4000-c000-${String(counter).padStart(12, '0')}`,
      site_id: siteId,
      anon_id: anonId,
      ts: `${day}T${String(8 + index).padStart(2, '0')}:00:00.000Z`,
      type: 'pageview',
      url: `https://shop.example/p${index}`,
      context: { user_agent: chrome },
    };
  });
}

describe('deletion reaches ClickHouse', () => {
  let clickhouseServer: ClickHouseTestServer;
  let server: TestServer;
  let clickhouse: ClickHouse;

  beforeAll(async () => {
    clickhouseServer = await startClickHouse();
    server = await startTestServer({
      clock: manualClock('2026-03-20T12:00:00.000Z'),
      env: { CLICKHOUSE_URL: clickhouseServer.url, CLICKHOUSE_DATABASE: 'deletion', LOG_RETAIN_DAYS: keepWholeLog },
      clickhouseShipping: { intervalMs: 200, backoffMs: 50, maxBackoffMs: 400 },
      // Reads right after a post wait for the projector and the shipper: on a loaded machine longer than the 2 s bound.
      projectionWaitMs: 30_000,
    });
    await seedWorkspace(server, 'del', { sites: ['del-a', 'del-b'] });
    clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'deletion', timeoutMs: 10_000 });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await clickhouseServer?.close();
  });

  async function post(siteId: string, events: Record<string, unknown>[]) {
    const response = await server.request('POST', '/s2s/events', { token: siteId, body: events });
    expect(response.status, response.text).toBe(202);
  }
  const summary = async (siteId: string) => {
    const answer = await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${day}&to=${day}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data as { visitors: number; pageviews: number };
  };
  // Physical rows, without FINAL: what ClickHouse still holds on disk.
  const rowsIn = async (table: 'events' | 'signed_visits', condition: ReturnType<typeof sql>) =>
    (await clickhouse.query<{ n: number }>(sql`SELECT count() AS n FROM ${sql([table] as unknown as TemplateStringsArray)} WHERE ${condition}`))[0]!.n;

  it('a pending deletion is left out of every read before ClickHouse deleted anything', async () => {
    // A harness of its own: nothing carries the deletion out, so only the reads' exclusion can hide the rows.
    const local = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') });
    try {
      await seedWorkspace(local, 'pending', { sites: ['pend'] });
      const localClickHouse = createClickHouse({ url: clickhouseServer.url, database: 'pending', timeoutMs: 10_000 });
      await applyClickHouseSchema(localClickHouse);
      const response = await local.request('POST', '/s2s/events', { token: 'pend', body: [...pageviews('pend', 'ann', 3), ...pageviews('pend', 'ben', 2)] });
      expect(response.status).toBe(202);
      await local.projected();
      await createShipper({ db: local.db, clickhouse: localClickHouse }).shipAll();
      const reads = createClickHouseReportReads({ clickhouse: localClickHouse, waitForShipping: async () => true, deletionsOf: (siteIds) => pendingDeletionsOf(local.db, siteIds) });
      const question = { scope: { siteIds: ['pend'], workspaceId: 'x' }, range: { fromDay: dayOf(Date.parse(day)), toDay: dayOf(Date.parse(day)) }, filters: {}, withInternal: false, visitors: true };
      expect((await reads.summary(question)).total).toMatchObject({ visitors: 2, visits: 5, pageviews: 5 });
      recordSubjectDeletion(local.db, 'pend', ['ann'], Date.now());
      expect((await reads.summary(question)).total).toMatchObject({ visitors: 1, visits: 2, pageviews: 2 });
      const ranking = await reads.ranking({ ...question, by: 'path', order: 'pageviews', offset: 0, limit: 10 });
      expect(ranking.rows.map((row) => [row.key, row.figures.pageviews])).toEqual([['/p0', 1], ['/p1', 1]]);
      // ClickHouse still holds ann's rows: the answer left them out.
      const [held] = await localClickHouse.query<{ n: number }>(sql`SELECT count() AS n FROM events WHERE anon_id = 'ann'`);
      expect(held!.n).toBe(3);
      // Carried out: deleted there, the record forgotten, the answer unchanged.
      await until('the mutation finished', async () => ((await carryDeletions(local.db, localClickHouse, Number.MAX_SAFE_INTEGER, Date.now())) === 1 ? true : undefined));
      expect(allPendingDeletions(local.db)).toEqual([]);
      const [left] = await localClickHouse.query<{ n: number }>(sql`SELECT count() AS n FROM events WHERE anon_id = 'ann'`);
      expect(left!.n).toBe(0);
      expect((await reads.summary(question)).total).toMatchObject({ visitors: 1, visits: 2, pageviews: 2 });
    } finally {
      await local.close();
    }
  });

  it('a GDPR delete stops counting at once, is carried into ClickHouse, and later events of the visitor count again', async () => {
    await post('del-a', [...pageviews('del-a', 'alice', 3), ...pageviews('del-a', 'bob', 2)]);
    expect(await summary('del-a')).toMatchObject({ visitors: 2, pageviews: 5 });
    const deleted = await server.request('POST', '/v1/sites/del-a/gdpr/delete', { body: { anon_id: 'alice' } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({ deleted_events: 3 });
    expect(await summary('del-a')).toMatchObject({ visitors: 1, pageviews: 2 });
    await until('ClickHouse holds none of alice\'s rows and the record is gone', async () => {
      const events = await rowsIn('events', sql`anon_id = 'alice'`);
      const visits = await rowsIn('signed_visits', sql`anon_id = 'alice'`);
      return events === 0 && visits === 0 && allPendingDeletions(server.db).length === 0 ? true : undefined;
    });
    expect(await summary('del-a')).toMatchObject({ visitors: 1, pageviews: 2 });
    await post('del-a', pageviews('del-a', 'alice', 1));
    expect(await summary('del-a')).toMatchObject({ visitors: 2, pageviews: 3 });
  });

  it('a site deletion stops counting at once and empties the site in ClickHouse; a new site of that id starts empty', async () => {
    await post('del-b', [...pageviews('del-b', 'carol', 4), ...pageviews('del-b', 'dan', 1)]);
    expect(await summary('del-b')).toMatchObject({ visitors: 2, pageviews: 5 });
    const removed = await server.request('DELETE', '/workspaces/del/sites/del-b');
    expect(removed.status, removed.text).toBe(204);
    const again = await server.request('POST', '/workspaces/del/sites', { body: { id: 'del-b', name: 'Site del-b again' } });
    expect(again.status, again.text).toBe(201);
    expect(await summary('del-b')).toMatchObject({ visitors: 0, pageviews: 0 });
    await until('ClickHouse holds none of the old site\'s rows', async () => {
      const events = await rowsIn('events', sql`site_id = 'del-b'`);
      return events === 0 && allPendingDeletions(server.db).length === 0 ? true : undefined;
    });
    await post('del-b', pageviews('del-b', 'erin', 2));
    expect(await summary('del-b')).toMatchObject({ visitors: 1, pageviews: 2 });
  });
});
