// Upgrading an install of schema version 4 (visits as versioned rows read with FINAL, tombstones for merged-away
// visits) to signed visits (versions 5 and 6): each live visit, and only those, becomes one +1 row of signed_visits,
// the longest span per site is kept for reads, the old table goes, and a copy run again after a crash part way (the
// version not recorded yet) copies nothing twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { applyClickHouseSchema, clickHouseSchemaSections } from '../../src/clickhouse/schema.ts';
import { sql, SqlText } from '../../src/clickhouse/sql-literal.ts';
import { startClickHouse, type ClickHouseTestServer } from './_server.ts';

/** A section's statements as schema.ts splits them (a ";" ending a line; comment lines dropped). */
const statementsOf = (version: number) =>
  clickHouseSchemaSections
    .find((section) => section.version === version)!
    .sql.split(/;\s*$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement.length > 0);

const visit = (id: number, version: number, extra: Record<string, unknown> = {}) => ({
  site_id: 'up-a',
  anon_id: `anon-${id}`,
  is_internal: 0,
  visit_id: id,
  version,
  deleted: 0,
  start_ts: 1_772_000_000_000 + id * 3_600_000,
  end_ts: 1_772_000_000_000 + id * 3_600_000 + 60_000,
  events: 2,
  pageviews: 2,
  entry_seq: id * 10,
  entry_path: '/a',
  entry_query: null,
  source: 'direct',
  utm_source: null,
  utm_medium: null,
  utm_campaign: null,
  browser: 'Chrome',
  os: null,
  device_type: 'desktop',
  country: null,
  region: null,
  city: null,
  exit_ts: null,
  exit_seq: null,
  exit_path: null,
  exit_query: null,
  ...extra,
});

describe('upgrading visits to signed rows (ClickHouse schema 5 and 6)', () => {
  let clickhouseServer: ClickHouseTestServer;
  let clickhouse: ClickHouse;

  beforeAll(async () => {
    clickhouseServer = await startClickHouse();
    clickhouse = createClickHouse({ url: clickhouseServer.url, database: 'upgrade', timeoutMs: 10_000 });
    // An install of version 4, as the release before this one left it.
    await clickhouse.exec(sql`CREATE DATABASE upgrade`, { database: null });
    await clickhouse.exec(sql`CREATE TABLE schema_versions (version UInt32, applied_at DateTime) ENGINE = TinyLog`);
    for (const version of [1, 2, 3, 4]) {
      for (const statement of statementsOf(version)) await clickhouse.exec(new SqlText(statement));
      await clickhouse.exec(sql`INSERT INTO schema_versions (version, applied_at) VALUES (${version}, now())`);
    }
    await clickhouse.insert('visits', [
      // 1: shipped, then extended by a late event (version 9 is live).
      visit(1, 3),
      visit(1, 9, { end_ts: visit(1, 9).end_ts + 600_000, events: 3, pageviews: 3, exit_seq: 31, exit_path: '/b' }),
      // 2: merged away later (its tombstone has the newer version): not live.
      visit(2, 3),
      visit(2, 9, { deleted: 1, source: '' }),
      // 3: internal, another site, live as shipped.
      visit(3, 5, { site_id: 'up-b', is_internal: 1 }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await clickhouseServer?.close();
  });

  it('copies each live visit once, even when the copy runs again after a crash, then drops the old table', async () => {
    // A first run of version 5 that stops before recording it (a crash right after the copy).
    for (const statement of statementsOf(5)) await clickhouse.exec(new SqlText(statement));
    expect(await applyClickHouseSchema(clickhouse)).toEqual([5, 6]);

    const rows = await clickhouse.query<{ site_id: string; visit_id: number; sign: number; end_ts: number; events: number; exit_path: string | null; is_internal: number }>(
      sql`SELECT site_id, visit_id, sign, end_ts, events, exit_path, is_internal FROM signed_visits ORDER BY site_id, visit_id`,
    );
    expect(rows).toEqual([
      { site_id: 'up-a', visit_id: 1, sign: 1, end_ts: visit(1, 9).end_ts + 600_000, events: 3, exit_path: '/b', is_internal: 0 },
      { site_id: 'up-b', visit_id: 3, sign: 1, end_ts: visit(3, 5).end_ts, events: 2, exit_path: null, is_internal: 1 },
    ]);
    // The bound reads use for visits that started before a range: the longest visit per site.
    const spans = await clickhouse.query<{ site_id: string; longest: number }>(sql`SELECT site_id, maxMerge(longest) AS longest FROM visit_spans GROUP BY site_id ORDER BY site_id`);
    expect(spans).toEqual([
      { site_id: 'up-a', longest: 660_000 },
      { site_id: 'up-b', longest: 60_000 },
    ]);
    const [old] = await clickhouse.query<{ n: number }>(sql`SELECT count() AS n FROM system.tables WHERE database = 'upgrade' AND name = 'visits'`);
    expect(old!.n).toBe(0);
    expect(await applyClickHouseSchema(clickhouse)).toEqual([]);
  });
});
