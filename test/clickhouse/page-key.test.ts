// The page of include_params=true as ClickHouse computes it (report-reads.ts pageKey) equals pageKeyOf's, the
// definition every SQLite read uses, for queries with and without utm_* parameters, empty parts and odd cases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse } from '../../src/clickhouse/client.ts';
import { joinSql, sql } from '../../src/clickhouse/sql-literal.ts';
import { pageKey } from '../../src/read-model/clickhouse/report-reads.ts';
import { pageKeyOf } from '../../src/vocabulary/dimensions.ts';
import { startClickHouse, type ClickHouseTestServer } from './_server.ts';

const pages: [string | null, string | null][] = [
  ['/', null],
  ['/', ''],
  ['/pricing', 'plan=pro'],
  ['/pricing', 'utm_source=news&utm_medium=email'],
  ['/pricing', 'plan=pro&utm_source=news&b=2'],
  ['/pricing', 'UTM_Campaign=x&Plan=Pro'],
  ['/a', '&&plan=pro&&'],
  ['/a', 'utm_=1'],
  ['/a', 'utm=1&utmx=2&xutm_a=3'],
  ['/a', 'utm_source'],
  ['/a', '=x&plan'],
  ['/zürich', 'q=東京&utm_term=🚀'],
  [null, 'plan=pro'],
];

describe('the page key in ClickHouse', () => {
  let server: ClickHouseTestServer;
  beforeAll(async () => {
    server = await startClickHouse();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('equals pageKeyOf for every case', async () => {
    const clickhouse = createClickHouse({ url: server.url, database: 'default' });
    const tuples = joinSql(pages.map(([path, query]) => sql`(${path}, ${query}, ${pages.findIndex((page) => page[0] === path && page[1] === query)})`), ', ');
    const rows = await clickhouse.query<{ n: number; page: string | null }>(
      sql`SELECT n, ${pageKey('path', 'query')} AS page FROM (
            SELECT CAST(tupleElement(t, 1) AS Nullable(String)) AS path, CAST(tupleElement(t, 2) AS Nullable(String)) AS query, tupleElement(t, 3) AS n
            FROM (SELECT arrayJoin([${tuples}]) AS t)) ORDER BY n`,
    );
    expect(rows.map((row) => row.page)).toEqual(pages.map(([path, query]) => pageKeyOf(path, query)));
  });
});
