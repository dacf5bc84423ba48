// Creates or upgrades Sightline's tables in ClickHouse (`sightline clickhouse init`): the sections of schema.sql
// not yet recorded in the database's schema_versions table, in order, each statement idempotent.
import schemaText from './schema.sql';
import type { ClickHouse } from './client.ts';
import { parseSchemaSections } from '../db/schema.ts';
import { identifier, joinSql, sql, SqlText } from './sql-literal.ts';
import { clusterOf, clusterStatements, hostsForSchema } from './cluster.ts';

export const clickHouseSchemaSections = parseSchemaSections(schemaText);
export const latestClickHouseSchemaVersion = clickHouseSchemaSections.length;

/** A section's statements: split where a line ends with ";" (the file's convention; no literal holds one). */
function statementsOf(sectionSql: string): string[] {
  return sectionSql
    .split(/;\s*$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement.length > 0);
}

/**
 * A schema statement may copy a table (version 5 copies the visits): it gets hours, not the client's 30 s. A copy cut
 * off by a timeout could go on in the server while a retry starts; its NOT IN guard would then not see its rows.
 */
const schemaStatementTimeoutMs = 4 * 3600_000;

/** The version the database holds (0 when new). */
export async function clickHouseSchemaVersion(clickhouse: ClickHouse): Promise<number> {
  const exists = await clickhouse.query<{ n: number }>(sql`SELECT count() AS n FROM system.tables WHERE database = ${clickhouse.database} AND name = 'schema_versions'`);
  if (exists[0]!.n === 0) return 0;
  const [row] = await clickhouse.query<{ version: number }>(sql`SELECT max(version) AS version FROM schema_versions`);
  return row?.version ?? 0;
}

/** The tables schema.sql creates. */
const schemaTables = [...schemaText.matchAll(/^CREATE TABLE IF NOT EXISTS (\w+)/gm)].map((match) => match[1]!);

/**
 * Brings the database to the latest version; refuses one from a newer release. Returns the versions applied (on a
 * cluster, those the entry node lacked). On a cluster (CLICKHOUSE_CLUSTER) every host is brought there in turn, over
 * its own HTTP interface, with local and Distributed tables (cluster.ts): ON CLUSTER would need ZooKeeper.
 * @example await applyClickHouseSchema(createClickHouse({ url, database: 'sightline' }))
 */
export async function applyClickHouseSchema(clickhouse: ClickHouse): Promise<number[]> {
  if (clickhouse.cluster === undefined) {
    const applied = await applyOnHost(clickhouse, (statement) => [statement]);
    await expectEngines(clickhouse, false);
    return applied;
  }
  const cluster = await clusterOf(clickhouse);
  let applied: number[] = [];
  for (const host of hostsForSchema(cluster)) {
    const onHost = await applyOnHost(host.client, (statement) => clusterStatements(statement, cluster.name, clickhouse.database));
    await expectEngines(host.client, true);
    if (host.isEntry) applied = onHost;
  }
  return applied;
}

/**
 * Refuses a database made for the other mode: a single node's MergeTree `events` would stay under IF NOT EXISTS and
 * the cluster's reads would see one host; a cluster's Distributed `events` on a single node would take the inserts
 * asynchronously. Moving between the two is a new database and a backfill (docs/clickhouse.md).
 */
async function expectEngines(clickhouse: ClickHouse, distributed: boolean): Promise<void> {
  const tables = await clickhouse.query<{ name: string; engine: string }>(
    sql`SELECT name, engine FROM system.tables WHERE database = ${clickhouse.database} AND name IN (${joinSql(schemaTables.map((name) => sql`${name}`), ', ')})`,
  );
  const wrong = tables.find((table) => (table.engine === 'Distributed') !== distributed);
  if (wrong) {
    throw new Error(
      distributed
        ? `ClickHouse database ${clickhouse.database} at ${clickhouse.url} was created for a single node (${wrong.name} is ${wrong.engine}): a cluster needs a new database (CLICKHOUSE_DATABASE), then sightline clickhouse backfill`
        : `ClickHouse database ${clickhouse.database} at ${clickhouse.url} was created for a cluster (${wrong.name} is Distributed): set CLICKHOUSE_CLUSTER`,
    );
  }
}

/** Applies the sections a host lacks; `statementsFor` gives what one schema.sql statement is on it. */
async function applyOnHost(clickhouse: ClickHouse, statementsFor: (statement: string) => string[]): Promise<number[]> {
  await clickhouse.exec(sql`CREATE DATABASE IF NOT EXISTS ${identifier(clickhouse.database)}`, { database: null });
  await clickhouse.exec(sql`CREATE TABLE IF NOT EXISTS schema_versions (version UInt32, applied_at DateTime) ENGINE = TinyLog`);
  const current = await clickHouseSchemaVersion(clickhouse);
  if (current > latestClickHouseSchemaVersion) {
    throw new Error(`ClickHouse schema version ${current} is newer than this release (${latestClickHouseSchemaVersion})`);
  }
  const applied: number[] = [];
  for (const section of clickHouseSchemaSections) {
    if (section.version <= current) continue;
    // The statements are constants of schema.sql, never input.
    for (const statement of statementsOf(section.sql)) {
      for (const onHost of statementsFor(statement)) await clickhouse.exec(new SqlText(onHost), { timeoutMs: schemaStatementTimeoutMs });
    }
    await clickhouse.exec(sql`INSERT INTO schema_versions (version, applied_at) VALUES (${section.version}, now())`);
    applied.push(section.version);
  }
  return applied;
}
