// A shipped batch never spans two of ClickHouse's partitions (months of the events' ts in the server's time zone):
// an insert is atomic within a partition only, so a crash between two parts would keep later seqs without earlier
// ones and "resume after the highest seq ClickHouse holds" would skip the gap. Pure edges first, then a real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse } from '../../src/clickhouse/client.ts';
import { applyClickHouseSchema } from '../../src/clickhouse/schema.ts';
import { createShipper, leadingPartition, monthPartitions } from '../../src/clickhouse/shipper.ts';
import { sql } from '../../src/clickhouse/sql-literal.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { startClickHouse, type ClickHouseTestServer } from './_server.ts';

const at = (iso: string) => Date.parse(iso);

describe('the partition of an event', () => {
  it.each([
    ['UTC', '2026-02-28T23:59:59.999Z', 202602],
    ['UTC', '2026-03-01T00:00:00.000Z', 202603],
    // India is 5:30 ahead: its March starts at 18:30 UTC on the last day of February.
    ['Asia/Kolkata', '2026-02-28T18:29:59.999Z', 202602],
    ['Asia/Kolkata', '2026-02-28T18:30:00.000Z', 202603],
    // Nepal is 5:45 ahead (a zone off the half hour).
    ['Asia/Kathmandu', '2026-02-28T18:14:59.999Z', 202602],
    ['Asia/Kathmandu', '2026-02-28T18:15:00.000Z', 202603],
    ['America/New_York', '2026-01-01T04:59:59.999Z', 202512],
    ['America/New_York', '2026-01-01T05:00:00.000Z', 202601],
  ])('in %s, %s is in %i', (zone, iso, month) => {
    expect(monthPartitions(zone)(at(iso))).toBe(month);
  });

  it('a batch is cut before its first event of another month, even when the month comes back later', () => {
    const partitionOf = monthPartitions('UTC');
    const events = ['2026-02-27T10:00:00Z', '2026-02-28T23:59:59Z', '2026-03-01T00:00:00Z', '2026-02-28T12:00:00Z'].map((iso, index) => ({ seq: index + 1, ts: at(iso) }));
    expect(leadingPartition(events, partitionOf).map((event) => event.seq)).toEqual([1, 2]);
    expect(leadingPartition(events.slice(2), partitionOf).map((event) => event.seq)).toEqual([3]);
    expect(leadingPartition(events.slice(3), partitionOf).map((event) => event.seq)).toEqual([4]);
    expect(leadingPartition([], partitionOf)).toEqual([]);
  });
});

describe('shipping across a month end', () => {
  let server: TestServer;
  let clickhouseServer: ClickHouseTestServer;

  beforeAll(async () => {
    [server, clickhouseServer] = await Promise.all([startTestServer({ clock: manualClock('2026-03-01T01:00:00.000Z') }), startClickHouse()]);
    await seedWorkspace(server, 'months', { sites: ['months'] });
    // In ingest order: 30 events of February's last hour, 30 of March's first, then 10 late ones of February.
    const times = [
      ...Array.from({ length: 30 }, (_, index) => at('2026-02-28T23:30:00Z') + index * 60_000),
      ...Array.from({ length: 30 }, (_, index) => at('2026-03-01T00:00:00Z') + index * 60_000),
      ...Array.from({ length: 10 }, (_, index) => at('2026-02-28T22:00:00Z') + index * 60_000),
    ];
    const events = times.map((ts, index) => ({
      id: `00000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`,
      site_id: 'months',
      anon_id: `v${index % 6}`,
      ts: new Date(ts).toISOString(),
      type: 'pageview',
      url: `https://months.example/p${index % 4}`,
    }));
    const response = await server.request('POST', '/s2s/events', { token: 'months', body: events });
    expect(response.status, response.text).toBe(202);
    await server.projected();
  }, 120_000);
  afterAll(async () => {
    await Promise.all([server?.close(), clickhouseServer?.close()]);
  });

  it('ships one month per batch and every event exactly once', async () => {
    const clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'months', timeoutMs: 10_000 });
    await applyClickHouseSchema(clickhouse);
    const shipper = createShipper({ db: server.db, clickhouse, batchSize: 1000 });
    const batches = [];
    for (let batch = await shipper.shipBatch(); batch.events > 0; batch = await shipper.shipBatch()) batches.push(batch.events);
    expect(batches).toEqual([30, 30, 10]);
    const stored = server.db.prepare("SELECT seq FROM events WHERE site_id = 'months' ORDER BY seq").pluck().all();
    const shipped = (await clickhouse.query<{ seq: number }>(sql`SELECT seq FROM events ORDER BY seq`)).map((row) => row.seq);
    expect(shipped).toEqual(stored);
    const parts = await clickhouse.query<{ partition: string }>(sql`SELECT DISTINCT partition FROM system.parts WHERE database = 'months' AND table = 'events' AND active ORDER BY partition`);
    expect(parts.map((part) => part.partition)).toEqual(['202602', '202603']);
  });
});
