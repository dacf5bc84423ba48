// What deleting a site removes is one list (src/app.ts, siteDataRemovers): every table of schema.sql with a site_id
// column must be named by one of its entries (or be a documented exception below), and deleting a site through the
// API must leave no row of it in any of them, while another site's rows stay. A remover left out of the list, or a
// new table with a site_id column and no remover, fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteDataRemovers } from '../../src/app.ts';
import type { Db } from '../../src/db/open.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';

/** Tables with a site_id column that deleting a site keeps on purpose, each with why. None today. */
const keptOnSiteDeletion: Record<string, string> = {};

interface Column {
  name: string;
  type: string;
  notnull: number;
  dflt_value: unknown;
  pk: number;
}

/** Every table of both files (the event log's under `eventlog`) with its columns, as the schema left them. */
function tablesOf(db: Db): { schema: string; table: string; columns: Column[] }[] {
  const tables: { schema: string; table: string; columns: Column[] }[] = [];
  for (const schema of ['main', 'eventlog']) {
    const names = db.prepare(`SELECT name FROM ${schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).pluck().all() as string[];
    for (const table of names) tables.push({ schema, table, columns: db.prepare('SELECT * FROM pragma_table_info(?, ?)').all(table, schema) as Column[] });
  }
  return tables;
}

const siteTables = (db: Db) => tablesOf(db).filter(({ columns }) => columns.some((column) => column.name === 'site_id'));

let next = 0;
/** A value every column accepts and no other row has (unique keys stay unique), by declared type. */
function valueFor(column: Column, siteId: string): unknown {
  if (column.name === 'site_id') return siteId;
  next++;
  const type = column.type.toUpperCase();
  if (type.includes('INT') || type.includes('REAL')) return next;
  if (type.includes('BLOB')) return Buffer.from([next % 256, 1]);
  return `${siteId}-${column.name}-${next}`;
}

/** A foreign key's value: the site itself, its workspace, or any row of another referenced table. */
function referencedValue(db: Db, schema: string, reference: { table: string; to: string }, siteId: string): unknown {
  if (reference.table === 'sites') return siteId;
  if (reference.table === 'workspaces') return db.prepare('SELECT workspace_id FROM sites WHERE id = ?').pluck().get(siteId);
  return db.prepare(`SELECT "${reference.to}" FROM ${schema}."${reference.table}" LIMIT 1`).pluck().get();
}

/** One row of the site in the table, every required column filled (a row no domain would write, which is the point). */
function insertRowOf(db: Db, schema: string, table: string, columns: Column[], siteId: string): void {
  const references = new Map(
    (db.prepare('SELECT "from", "table", "to" FROM pragma_foreign_key_list(?, ?)').all(table, schema) as { from: string; table: string; to: string }[]).map(
      (reference) => [reference.from, reference],
    ),
  );
  const filled = columns.filter((column) => column.name === 'site_id' || (column.notnull === 1 && column.dflt_value === null) || column.pk > 0);
  const names = filled.map((column) => `"${column.name}"`).join(', ');
  const slots = filled.map(() => '?').join(', ');
  const values = filled.map((column) => {
    const reference = references.get(column.name);
    return reference && column.name !== 'site_id' ? referencedValue(db, schema, reference, siteId) : valueFor(column, siteId);
  });
  db.prepare(`INSERT INTO ${schema}."${table}" (${names}) VALUES (${slots})`).run(...values);
}

const rowsOf = (db: Db, schema: string, table: string, siteId: string) =>
  db.prepare(`SELECT count(*) FROM ${schema}."${table}" WHERE site_id = ?`).pluck().get(siteId) as number;

describe('what deleting a site removes (the app\'s list of site data removers)', () => {
  let server: TestServer;

  beforeAll(async () => {
    // No projector: the rows written below are not events it could read.
    server = await startTestServer({ projector: 'manual' });
    await seedWorkspace(server, 'acme', { sites: ['doomed', 'kept'] });
  });
  afterAll(() => server.close());

  it('names every table with a site_id column, and only tables of the schema', () => {
    const tables = siteTables(server.db).map(({ table }) => table);
    const named = new Set(siteDataRemovers.flatMap((remover) => remover.tables));
    expect(tables.filter((table) => !named.has(table) && !(table in keptOnSiteDeletion))).toEqual([]);
    const allTables = new Set(tablesOf(server.db).map(({ table }) => table));
    expect([...named].filter((table) => !allTables.has(table))).toEqual([]);
    expect(Object.keys(keptOnSiteDeletion).filter((table) => !tables.includes(table))).toEqual([]);
  });

  it('has one entry per name, each in a known phase', () => {
    const names = siteDataRemovers.map((remover) => remover.name);
    expect(new Set(names).size).toBe(names.length);
    expect(siteDataRemovers.filter((remover) => remover.phase !== 'derived' && remover.phase !== 'stored')).toEqual([]);
  });

  it("leaves no row of a deleted site in any table with a site_id column; another site's rows stay", async () => {
    const tables = siteTables(server.db);
    for (const { schema, table, columns } of tables) for (const site of ['doomed', 'kept']) insertRowOf(server.db, schema, table, columns, site);
    const before = Object.fromEntries(tables.map(({ schema, table }) => [table, [rowsOf(server.db, schema, table, 'doomed'), rowsOf(server.db, schema, table, 'kept')]]));
    expect(Object.values(before).every(([doomed, kept]) => doomed! >= 1 && kept! >= 1)).toBe(true);

    const deleted = await server.request('DELETE', '/workspaces/acme/sites/doomed');
    expect(deleted.status).toBe(204);

    const after = Object.fromEntries(tables.map(({ schema, table }) => [table, [rowsOf(server.db, schema, table, 'doomed'), rowsOf(server.db, schema, table, 'kept')]]));
    const expected = Object.fromEntries(tables.map(({ table }) => [table, [table in keptOnSiteDeletion ? before[table]![0] : 0, before[table]![1]]]));
    expect(after).toEqual(expected);
  });
});
