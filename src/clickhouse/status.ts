// What `sightline clickhouse status` reports: the server's version, the schema version, how far shipping has come
// (the highest seq ClickHouse holds and the events the SQLite log holds after it), rows, and bytes on disk per event.
import type { Db } from '../db/open.ts';
import { ClickHouseQueryError, type ClickHouse } from './client.ts';
import { clickHouseSchemaVersion, latestClickHouseSchemaVersion } from './schema.ts';
import { sql } from './sql-literal.ts';
import { countEventsAfter } from './sqlite-source.ts';

export interface ClickHouseStatus {
  server_version: string;
  database: string;
  schema_version: number;
  latest_schema_version: number;
  /** The highest seq ClickHouse holds (0 when none). */
  shipped_through: number;
  /** Events the SQLite log holds that ClickHouse does not. */
  lag_events: number;
  /** Rows as stored (a row sent twice counts twice until a merge; reads use FINAL). */
  event_rows: number;
  visit_rows: number;
  /** Compressed bytes on disk of the active parts. */
  events_bytes: number;
  visits_bytes: number;
  /** (events + visits bytes) / event rows; null without events. */
  bytes_per_event: number | null;
}

/** Reads the status; `db` is the data directory's database (for the lag). A database without tables has version 0. */
export async function readClickHouseStatus(clickhouse: ClickHouse, db: Db): Promise<ClickHouseStatus> {
  const server_version = await clickhouse.version();
  const schema_version = await clickHouseSchemaVersion(clickhouse).catch((error: unknown) => {
    // 81 UNKNOWN_DATABASE: init has not run; every query names the database, so nothing more can be read.
    if (error instanceof ClickHouseQueryError && error.code === 81) return undefined;
    throw error;
  });
  if (schema_version === undefined) return emptyStatus(server_version, clickhouse.database, countEventsAfter(db, 0));
  let shipped_through = 0;
  let event_rows = 0;
  let visit_rows = 0;
  if (schema_version > 0) {
    const [events] = await clickhouse.query<{ through: number; rows: number }>(sql`SELECT max(seq) AS through, count() AS rows FROM events`);
    const [visits] = await clickhouse.query<{ rows: number }>(sql`SELECT count() AS rows FROM signed_visits`);
    shipped_through = events!.through;
    event_rows = events!.rows;
    visit_rows = visits!.rows;
  }
  const parts = await clickhouse.query<{ table: string; bytes: number }>(
    sql`SELECT table, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = ${clickhouse.database} AND active AND table IN ('events', 'signed_visits') GROUP BY table`,
  );
  const bytesOf = (table: string) => parts.find((part) => part.table === table)?.bytes ?? 0;
  const events_bytes = bytesOf('events');
  const visits_bytes = bytesOf('signed_visits');
  return {
    server_version,
    database: clickhouse.database,
    schema_version,
    latest_schema_version: latestClickHouseSchemaVersion,
    shipped_through,
    lag_events: countEventsAfter(db, shipped_through),
    event_rows,
    visit_rows,
    events_bytes,
    visits_bytes,
    bytes_per_event: event_rows === 0 ? null : Math.round(((events_bytes + visits_bytes) / event_rows) * 10) / 10,
  };
}

function emptyStatus(server_version: string, database: string, lag_events: number): ClickHouseStatus {
  return {
    server_version,
    database,
    schema_version: 0,
    latest_schema_version: latestClickHouseSchemaVersion,
    shipped_through: 0,
    lag_events,
    event_rows: 0,
    visit_rows: 0,
    events_bytes: 0,
    visits_bytes: 0,
    bytes_per_event: null,
  };
}
