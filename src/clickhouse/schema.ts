// Creates or upgrades Sightline's tables in ClickHouse (`sightline clickhouse init`): the sections of schema.sql
// not yet recorded in the database's schema_versions table, in order, each statement idempotent.
import schemaText from './schema.sql';
import type { ClickHouse } from './client.ts';
import { parseSchemaSections } from '../db/schema.ts';
import { identifier, sql, SqlText } from './sql-literal.ts';

export const clickHouseSchemaSections = parseSchemaSections(schemaText);
export const latestClickHouseSchemaVersion = clickHouseSchemaSections.length;

/** A section's statements: split where a line ends with ";" (the file's convention; no literal holds one). */
function statementsOf(sectionSql: string): string[] {
  return sectionSql
    .split(/;\s*$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement.length > 0);
}

/** The version the database holds (0 when new). */
export async function clickHouseSchemaVersion(clickhouse: ClickHouse): Promise<number> {
  const exists = await clickhouse.query<{ n: number }>(sql`SELECT count() AS n FROM system.tables WHERE database = ${clickhouse.database} AND name = 'schema_versions'`);
  if (exists[0]!.n === 0) return 0;
  const [row] = await clickhouse.query<{ version: number }>(sql`SELECT max(version) AS version FROM schema_versions`);
  return row?.version ?? 0;
}

/**
 * Brings the database to the latest version; refuses one from a newer release. Returns the versions applied.
 * @example await applyClickHouseSchema(createClickHouse({ url, database: 'sightline' }))
 */
export async function applyClickHouseSchema(clickhouse: ClickHouse): Promise<number[]> {
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
    for (const statement of statementsOf(section.sql)) await clickhouse.exec(new SqlText(statement));
    await clickhouse.exec(sql`INSERT INTO schema_versions (version, applied_at) VALUES (${section.version}, now())`);
    applied.push(section.version);
  }
  return applied;
}
