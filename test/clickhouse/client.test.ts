// The ClickHouse HTTP client against a real server: hostile values survive quoting unchanged (they come back as the
// very value, and select exactly the row holding it), JSONEachRow inserts read back through FORMAT JSON, a server
// error is a ClickHouseQueryError with its code, and no answer in time or no server is a ClickHouseUnavailableError.
// External tables sent with a query carry hostile strings unchanged, and a long statement with them still runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseQueryError, ClickHouseUnavailableError, createClickHouse, type ClickHouse } from '../../src/clickhouse/client.ts';
import { identifier, literal, quoteString, sql } from '../../src/clickhouse/sql-literal.ts';
import { freePort, startClickHouse, type ClickHouseTestServer } from './_server.ts';

const hostileStrings: [string, string][] = [
  ['a single quote', "'"],
  ['a backslash', '\\'],
  ['a backslash before a quote', "\\'"],
  ['a trailing backslash', 'abc\\'],
  ['a statement break-out', "x'; DROP TABLE default.kept; --"],
  ['a boolean break-out', "' OR 1=1 OR '"],
  ['an escaped-quote lookalike', "\\x27 OR 1=1"],
  ['a NUL and control characters', 'a\u0000b\u0001c\n\r\t\u001f\u007f'],
  ['backticks and double quotes', '`x` "y"'],
  ['placeholder lookalikes', '{p:String} ? $1 :name %s'],
  ['non-ASCII text', 'Zürich 東京 🚀 \u2028\u2029'],
  ['a comment opener', '/* x */ -- y #z'],
  ['the empty string', ''],
  ['a long string', "'\\".repeat(5000)],
];

describe('ClickHouse client', () => {
  let server: ClickHouseTestServer;
  let clickhouse: ClickHouse;
  beforeAll(async () => {
    server = await startClickHouse();
    clickhouse = createClickHouse({ url: server.url, database: 'default', timeoutMs: 10_000 });
    await clickhouse.exec(sql`CREATE TABLE kept (id UInt32, value String) ENGINE = MergeTree ORDER BY id`);
    await clickhouse.insert('kept', hostileStrings.map(([, value], index) => ({ id: index, value })));
  }, 90_000);
  afterAll(async () => {
    await server?.close();
  });

  it.each(hostileStrings)('quotes %s so the server reads back the very value', async (_name, value) => {
    const [row] = await clickhouse.query<{ v: string }>(sql`SELECT ${value} AS v`);
    expect(row!.v).toBe(value);
  });

  it.each(hostileStrings)('finds the row holding %s by it and no other', async (_name, value) => {
    const rows = await clickhouse.query<{ id: number }>(sql`SELECT id FROM kept WHERE value = ${value} ORDER BY id`);
    expect(rows.map((row) => row.id)).toEqual([hostileStrings.findIndex(([, stored]) => stored === value)]);
    expect((await clickhouse.query<{ n: number }>(sql`SELECT count() AS n FROM kept`))[0]!.n).toBe(hostileStrings.length);
  });

  it('writes numbers, arrays and nulls as literals the server reads exactly', async () => {
    const [row] = await clickhouse.query<Record<string, unknown>>(
      sql`SELECT ${9007199254740991} AS big, ${-42} AS negative, ${0.1} AS tenth, ${1e-7} AS tiny, ${['a', "b'"]} AS list, ${null} AS nothing, ${true} AS yes`,
    );
    expect(row).toEqual({ big: 9007199254740991, negative: -42, tenth: 0.1, tiny: 1e-7, list: ['a', "b'"], nothing: null, yes: 1 });
    expect(literal(1e21)).toBe('1000000000000000000000');
    expect(quoteString("it's")).toBe("'it\\'s'");
  });

  it('refuses what has no safe literal: non-finite numbers and names that are not plain identifiers', () => {
    expect(() => literal(Number.NaN)).toThrow(TypeError);
    expect(() => literal(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => identifier('events; DROP TABLE x')).toThrow(TypeError);
    expect(() => identifier('`x`')).toThrow(TypeError);
    expect(identifier('sightline_2').text).toBe('`sightline_2`');
  });

  it('turns a server error into a ClickHouseQueryError with its code', async () => {
    const missing = clickhouse.query(sql`SELECT * FROM no_such_table`);
    await expect(missing).rejects.toBeInstanceOf(ClickHouseQueryError);
    await expect(missing).rejects.toMatchObject({ code: 60, status: 404 });
    await expect(clickhouse.query(sql`SELEKT 1`)).rejects.toMatchObject({ name: 'ClickHouseQueryError', code: 62 });
  });

  it('gives up after its timeout, and tells an unreachable server apart, as ClickHouseUnavailableError', async () => {
    const impatient = createClickHouse({ url: server.url, database: 'default', timeoutMs: 200 });
    await expect(impatient.query(sql`SELECT sleep(2)`)).rejects.toBeInstanceOf(ClickHouseUnavailableError);
    const nobody = createClickHouse({ url: `http://127.0.0.1:${await freePort()}`, database: 'default', timeoutMs: 2000 });
    await expect(nobody.query(sql`SELECT 1`)).rejects.toBeInstanceOf(ClickHouseUnavailableError);
  });

  it('sends external tables with a query: hostile strings arrive unchanged, and select exactly their rows', async () => {
    const wanted = { name: 'wanted', columns: { value: 'String' }, rows: hostileStrings.map(([, value]) => ({ value })) };
    const arrived = await clickhouse.query<{ value: string }>(sql`SELECT value FROM wanted`, {}, [wanted]);
    expect(arrived.map((row) => row.value)).toEqual(hostileStrings.map(([, value]) => value));
    const found = await clickhouse.query<{ id: number }>(sql`SELECT id FROM kept WHERE value IN wanted ORDER BY id`, {}, [{ ...wanted, rows: wanted.rows.slice(2, 5) }]);
    expect(found.map((row) => row.id)).toEqual([2, 3, 4]);
    // Two tables, one of them empty, and numbers.
    const [counts] = await clickhouse.query<{ ids: number; none: number }>(
      sql`SELECT (SELECT count() FROM kept WHERE id IN ids) AS ids, (SELECT count() FROM nothing) AS none`,
      {},
      [
        { name: 'ids', columns: { id: 'UInt32' }, rows: [{ id: 1 }, { id: 3 }, { id: 99 }] },
        { name: 'nothing', columns: { id: 'UInt32' }, rows: [] },
      ],
    );
    expect(counts).toEqual({ ids: 2, none: 0 });
  });

  it('sends a statement of more than 16 KB with external tables (in the body: the URL would be refused)', async () => {
    const long = 'x'.repeat(40_000);
    const [row] = await clickhouse.query<{ n: number; length: number }>(sql`SELECT count() AS n, length(${long}) AS length FROM wanted`, {}, [
      { name: 'wanted', columns: { value: 'String' }, rows: [{ value: 'a' }] },
    ]);
    expect(row).toEqual({ n: 1, length: 40_000 });
  });

  it('refuses external tables whose names or types are not plain', async () => {
    await expect(clickhouse.query(sql`SELECT 1`, {}, [{ name: 'x; DROP', columns: { a: 'String' }, rows: [] }])).rejects.toThrow(TypeError);
    await expect(clickhouse.query(sql`SELECT 1`, {}, [{ name: 'x', columns: { 'a b': 'String' }, rows: [] }])).rejects.toThrow(TypeError);
    await expect(clickhouse.query(sql`SELECT 1`, {}, [{ name: 'x', columns: { a: "String', b" }, rows: [] }])).rejects.toThrow(TypeError);
  });

  it('names the server version', async () => {
    expect(await clickhouse.version()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
