// What `sightline clickhouse status` reports: the server's version, the schema version, how far shipping has come
// (the highest seq ClickHouse holds and the events the SQLite log holds after it), rows, and bytes on disk per event.
// On a cluster (CLICKHOUSE_CLUSTER) each shard is read on its own host: its position (what the shipper resumes from),
// the lag of its sites, its local tables' rows and bytes, and its server version; the totals are the shards' (the
// Distributed tables on the entry node hold no parts, and the global max(seq) can be past a lagging shard).
import type { Db } from '../db/open.ts';
import { ClickHouseQueryError, type ClickHouse } from './client.ts';
import { clickHouseSchemaVersion, latestClickHouseSchemaVersion } from './schema.ts';
import { identifier, sql } from './sql-literal.ts';
import { countEventsAfter } from './sqlite-source.ts';
import { clusterOf, localTableOf, shardPositions, type ClusterShard } from './cluster.ts';
import { preparedOnce } from '../db/statements.ts';

/** One shard of a cluster, as its own host answers. */
export interface ShardStatus {
  /** shard_num in system.clusters (from 1). */
  shard: number;
  host: string;
  server_version: string;
  /** The seq through which the shard holds every event of its sites (the shipper resumes from the lowest). */
  shipped_through: number;
  /** Events of the shard's sites that the SQLite log holds after its position. */
  lag_events: number;
  event_rows: number;
  visit_rows: number;
  events_bytes: number;
  visits_bytes: number;
  bytes_per_event: number | null;
}

export interface ClickHouseStatus {
  server_version: string;
  database: string;
  schema_version: number;
  latest_schema_version: number;
  /** The highest seq ClickHouse holds (0 when none). */
  shipped_through: number;
  /** Events the SQLite log holds that ClickHouse does not. */
  lag_events: number;
  /** Rows as stored (a row sent twice counts twice until a merge collapses it). */
  event_rows: number;
  visit_rows: number;
  /** Compressed bytes on disk of the active parts. */
  events_bytes: number;
  visits_bytes: number;
  /** (events + visits bytes) / event rows; null without events. */
  bytes_per_event: number | null;
  /** On a cluster: each shard (the figures above are then their totals, shipped_through the lowest position). */
  shards?: ShardStatus[];
}

const statements = preparedOnce((db) => ({
  // The lag by site, for each shard's share (a range of the primary key, grouped).
  lagBySite: db.prepare<{ after_seq: number }, { site_id: string; events: number }>('SELECT site_id, count(*) AS events FROM events WHERE seq > :after_seq GROUP BY site_id'),
}));

const perEvent = (bytes: number, rows: number) => (rows === 0 ? null : Math.round((bytes / rows) * 10) / 10);

/** Rows and bytes of a host's tables (`events`, `signed_visits`, or their `_local` forms on a cluster). */
async function tableFigures(client: ClickHouse, database: string, events: string, visits: string) {
  const [eventRows] = await client.query<{ through: number; rows: number }>(sql`SELECT max(seq) AS through, count() AS rows FROM ${identifier(events)}`);
  const [visitRows] = await client.query<{ rows: number }>(sql`SELECT count() AS rows FROM ${identifier(visits)}`);
  const parts = await client.query<{ table: string; bytes: number }>(
    sql`SELECT table, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = ${database} AND active AND table IN (${events}, ${visits}) GROUP BY table`,
  );
  const bytesOf = (table: string) => parts.find((part) => part.table === table)?.bytes ?? 0;
  return { through: eventRows!.through, event_rows: eventRows!.rows, visit_rows: visitRows!.rows, events_bytes: bytesOf(events), visits_bytes: bytesOf(visits) };
}

/** Each shard's figures, read on its own host; the lag of a shard counts the log's events of its sites after its position. */
async function readShards(clickhouse: ClickHouse, db: Db): Promise<ShardStatus[]> {
  const cluster = await clusterOf(clickhouse);
  const positions = await shardPositions(cluster);
  const lowest = Math.min(...positions.values());
  const lagBySite = statements(db).lagBySite.all({ after_seq: lowest });
  const shardOfSite = await cluster.shardsOfSites(lagBySite.map((row) => row.site_id));
  const shardLag = async (shard: ClusterShard, through: number) => {
    if (through === lowest) return lagBySite.reduce((sum, row) => sum + (shardOfSite.get(row.site_id) === shard ? row.events : 0), 0);
    // Past the lowest: only this shard's events after its own position count.
    const own = statements(db).lagBySite.all({ after_seq: through });
    const placed = await cluster.shardsOfSites(own.map((row) => row.site_id));
    return own.reduce((sum, row) => sum + (placed.get(row.site_id) === shard ? row.events : 0), 0);
  };
  return Promise.all(
    cluster.shards.map(async (shard): Promise<ShardStatus> => {
      const through = positions.get(shard) ?? 0;
      const figures = await tableFigures(shard.client, clickhouse.database, localTableOf('events'), localTableOf('signed_visits'));
      return {
        shard: shard.num,
        host: shard.host,
        server_version: await shard.client.version(),
        shipped_through: through,
        lag_events: await shardLag(shard, through),
        event_rows: figures.event_rows,
        visit_rows: figures.visit_rows,
        events_bytes: figures.events_bytes,
        visits_bytes: figures.visits_bytes,
        bytes_per_event: perEvent(figures.events_bytes + figures.visits_bytes, figures.event_rows),
      };
    }),
  );
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
  if (schema_version > 0 && clickhouse.cluster !== undefined) {
    const shards = await readShards(clickhouse, db);
    const sum = (pick: (shard: ShardStatus) => number) => shards.reduce((total, shard) => total + pick(shard), 0);
    const shipped_through = Math.min(...shards.map((shard) => shard.shipped_through));
    return {
      server_version,
      database: clickhouse.database,
      schema_version,
      latest_schema_version: latestClickHouseSchemaVersion,
      shipped_through,
      lag_events: sum((shard) => shard.lag_events),
      event_rows: sum((shard) => shard.event_rows),
      visit_rows: sum((shard) => shard.visit_rows),
      events_bytes: sum((shard) => shard.events_bytes),
      visits_bytes: sum((shard) => shard.visits_bytes),
      bytes_per_event: perEvent(sum((shard) => shard.events_bytes + shard.visits_bytes), sum((shard) => shard.event_rows)),
      shards,
    };
  }
  const figures =
    schema_version > 0
      ? await tableFigures(clickhouse, clickhouse.database, 'events', 'signed_visits')
      : { through: 0, event_rows: 0, visit_rows: 0, events_bytes: 0, visits_bytes: 0 };
  return {
    server_version,
    database: clickhouse.database,
    schema_version,
    latest_schema_version: latestClickHouseSchemaVersion,
    shipped_through: figures.through,
    lag_events: countEventsAfter(db, figures.through),
    event_rows: figures.event_rows,
    visit_rows: figures.visit_rows,
    events_bytes: figures.events_bytes,
    visits_bytes: figures.visits_bytes,
    bytes_per_event: perEvent(figures.events_bytes + figures.visits_bytes, figures.event_rows),
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
