// A ClickHouse cluster (CLICKHOUSE_CLUSTER, docs/clickhouse.md "A cluster"): every table of schema.sql is a local
// table `<name>_local` on each shard plus a Distributed table `<name>` over them, so every read (which names `events`,
// `visits`, …) goes through the Distributed tables unchanged. What differs is writing, done here:
// - the schema is applied on every host over its own HTTP interface (18.16's ON CLUSTER needs ZooKeeper);
// - rows go straight to their shard's local tables, by site (the Distributed tables' sharding key), one insert per
//   shard and table, so that each shard's position stays exact (shardPositions);
// - deletion mutations run on each shard's local tables (ALTER … DELETE is refused on a Distributed table).
import type { ClickHouse } from './client.ts';
import { identifier, joinSql, sql, SqlText } from './sql-literal.ts';

export interface ClusterShard {
  /** shard_num in system.clusters (from 1). */
  num: number;
  /** The host as remote_servers names it. */
  host: string;
  /** Its HTTP interface: CLICKHOUSE_URL for the entry node, else the host at CLICKHOUSE_URL's scheme and port. */
  url: string;
  client: ClickHouse;
  /** The node CLICKHOUSE_URL names (the cluster's host that is local to it). */
  isEntry: boolean;
}

export interface ClickHouseCluster {
  name: string;
  shards: ClusterShard[];
  /** The shard holding each site's rows, as the Distributed tables' sharding key places them. */
  shardsOfSites(siteIds: readonly string[]): Promise<Map<string, ClusterShard>>;
}

/** The local table under a Distributed one. */
export const localTableOf = (table: string): string => `${table}_local`;

/**
 * The sharding key: the site. A person is a site's anon_ids merged through user_id, a merge can come long after the
 * events were shipped (a login on a second device), and rows cannot move between shards; the site is the only key
 * known at ingest that keeps every person, visit and visitor on one shard, whatever merges come later.
 */
const shardingKey = (column: string) => sql`sipHash64(${new SqlText(column)})`;

interface ClusterRow {
  shard_num: number;
  shard_weight: number;
  replica_num: number;
  host_name: string;
  host_address: string;
  is_local: number;
}

/** The cluster's configuration is unusable (not a cluster of this server, replicas, not a host of it). */
export class ClusterConfigError extends Error {}

const resolved = new WeakMap<ClickHouse, Promise<ClickHouseCluster>>();

/** The cluster of a client made with `cluster` (read once from system.clusters; a failed read is tried again). */
export function clusterOf(clickhouse: ClickHouse): Promise<ClickHouseCluster> {
  let found = resolved.get(clickhouse);
  if (!found) {
    found = readCluster(clickhouse);
    resolved.set(clickhouse, found);
    found.catch(() => resolved.delete(clickhouse));
  }
  return found;
}

/** A host of remote_servers at the entry node's scheme and port (a cluster's hosts share their HTTP port). */
function urlOfHost(entryUrl: string, host: string): string {
  const url = new URL(entryUrl);
  url.hostname = host.includes(':') ? `[${host}]` : host;
  return url.toString().replace(/\/+$/, '');
}

async function readCluster(entry: ClickHouse): Promise<ClickHouseCluster> {
  const name = entry.cluster;
  if (name === undefined) throw new TypeError('not a cluster client');
  const rows = await entry.query<ClusterRow>(
    sql`SELECT shard_num, shard_weight, replica_num, host_name, host_address, is_local FROM system.clusters WHERE cluster = ${name} ORDER BY shard_num, replica_num`,
    { database: 'system' },
  );
  if (rows.length === 0) throw new ClusterConfigError(`CLICKHOUSE_CLUSTER: ClickHouse at ${entry.url} has no cluster "${name}" in its remote_servers`);
  const replicated = rows.find((row) => row.replica_num > 1);
  if (replicated) {
    throw new ClusterConfigError(
      `CLICKHOUSE_CLUSTER: shard ${replicated.shard_num} of "${name}" has several replicas; Sightline writes one host per shard (replicas need ReplicatedMergeTree and ZooKeeper)`,
    );
  }
  // The entry node: the host ClickHouse counts as itself, or the one CLICKHOUSE_URL names (an address ClickHouse does
  // not count as its own, e.g. a second loopback address, is still it when the URL names it).
  const entryHost = new URL(entry.url).hostname.replace(/^\[|\]$/g, '');
  const isEntryRow = (row: ClusterRow) => row.is_local === 1 || row.host_name === entryHost || row.host_address === entryHost;
  if (!rows.some(isEntryRow)) {
    throw new ClusterConfigError(`CLICKHOUSE_CLUSTER: ClickHouse at ${entry.url} is not a host of "${name}" (CLICKHOUSE_URL must name one of its shards)`);
  }
  const shards = rows.map((row): ClusterShard => {
    const isEntry = isEntryRow(row);
    const url = isEntry ? entry.url : urlOfHost(entry.url, row.host_name);
    return { num: row.shard_num, host: row.host_name, url, client: isEntry ? entry.forHost(entry.url) : entry.forHost(url), isEntry };
  });
  // As the Distributed engine places a row: the key modulo the total weight picks a slot, slots go to shards in order.
  const slots = rows.flatMap((row, index) => Array.from({ length: row.shard_weight }, () => shards[index]!));
  const placed = new Map<string, ClusterShard>();
  return {
    name,
    shards,
    async shardsOfSites(siteIds) {
      const unknown = [...new Set(siteIds)].filter((siteId) => !placed.has(siteId));
      if (unknown.length > 0) {
        // ClickHouse computes the key, so the placement is the Distributed table's own.
        const answer = await entry.query<{ site: string; slot: number }>(
          sql`SELECT site, ${shardingKey('site')} % ${slots.length} AS slot FROM (SELECT arrayJoin([${joinSql(unknown.map((siteId) => sql`${siteId}`), ', ')}]) AS site)`,
          { database: 'system' },
        );
        for (const row of answer) placed.set(row.site, slots[row.slot]!);
      }
      return new Map(siteIds.map((siteId) => [siteId, placed.get(siteId)!]));
    },
  };
}

/**
 * A schema.sql statement as a cluster's host runs it: a table is created as `<name>_local`, then `<name>` as a
 * Distributed table over the cluster's local tables (sharded by site; a table without site_id is never written
 * through it); a column change applies to both, other ALTERs to the local table. Anything else is refused, so a new
 * kind of statement in schema.sql is decided here rather than run on one host only.
 */
export function clusterStatements(statement: string, clusterName: string, database: string): string[] {
  const create = /^CREATE TABLE IF NOT EXISTS (\w+)\s*\(/.exec(statement);
  if (create) {
    const table = create[1]!;
    const local = localTableOf(table);
    const key = /\bsite_id\b/.test(statement) ? shardingKey('site_id') : sql`rand()`;
    return [
      statement.replace(create[0], `CREATE TABLE IF NOT EXISTS ${local} (`),
      sql`CREATE TABLE IF NOT EXISTS ${identifier(table)} AS ${identifier(local)} ENGINE = Distributed(${clusterName}, ${database}, ${local}, ${key})`.text,
    ];
  }
  // A materialized view watches inserts into a table; the shipper inserts into each shard's local tables, so the view
  // is a local one over them, with a Distributed table of the view's name reading every shard's (aggregate states
  // merge across shards as within one).
  const view = /^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+)\s/.exec(statement);
  if (view) {
    const name = view[1]!;
    const local = localTableOf(name);
    return [
      onLocalTables(statement.replace(view[0], `CREATE MATERIALIZED VIEW IF NOT EXISTS ${local} `)),
      sql`CREATE TABLE IF NOT EXISTS ${identifier(name)} AS ${identifier(local)} ENGINE = Distributed(${clusterName}, ${database}, ${local}, rand())`.text,
    ];
  }
  // Filling such a view from the rows already there: each host from its own local tables.
  const fill = /^INSERT INTO (\w+) SELECT\b/.exec(statement);
  if (fill) return [onLocalTables(statement.replace(fill[0], `INSERT INTO ${localTableOf(fill[1]!)} SELECT`))];
  // A table dropped: the Distributed table over it first, then the local one.
  const drop = /^DROP TABLE IF EXISTS (\w+)$/.exec(statement);
  if (drop) return [statement, `DROP TABLE IF EXISTS ${localTableOf(drop[1]!)}`];
  const alter = /^ALTER TABLE (\w+)\s/.exec(statement);
  if (alter) {
    const onLocal = statement.replace(alter[0], `ALTER TABLE ${localTableOf(alter[1]!)} `);
    return /^ALTER TABLE \w+\s+(ADD|DROP|MODIFY) COLUMN\b/.test(statement) ? [onLocal, statement] : [onLocal];
  }
  throw new Error(`schema.sql: no cluster form for this statement (cluster.ts clusterStatements): ${statement.slice(0, 80)}`);
}

/** A statement's `FROM <table>` read from the table's local part (a view or a fill runs host by host). */
function onLocalTables(statement: string): string {
  return statement.replace(/\bFROM (\w+)/g, (_match, table: string) => `FROM ${localTableOf(table)}`);
}

/** The hosts in the order the schema is applied: the entry node last, so its schema_versions is reached last. */
export function hostsForSchema(cluster: ClickHouseCluster): ClusterShard[] {
  return [...cluster.shards.filter((shard) => !shard.isEntry), ...cluster.shards.filter((shard) => shard.isEntry)];
}

/**
 * Per shard, the seq through which it holds every event of its sites: the highest seq among its events, or the last
 * batch marked complete on it (shipping_marks: a shard that a batch brought nothing still moves on). Each shard's
 * events arrive in seq order, one insert per batch, so holding seq s means holding every earlier one of its own.
 */
export async function shardPositions(cluster: ClickHouseCluster): Promise<Map<ClusterShard, number>> {
  const positions = await Promise.all(
    cluster.shards.map(async (shard) => {
      const [row] = await shard.client.query<{ through: number }>(
        sql`SELECT greatest((SELECT max(seq) FROM events_local), (SELECT max(through) FROM shipping_marks_local)) AS through`,
      );
      return [shard, row?.through ?? 0] as const;
    }),
  );
  return new Map(positions);
}

export interface ShardedBatch {
  visits: readonly ({ site_id: string } & object)[];
  /** Identity bindings (identity_bindings), written with the visits, before the events. */
  bindings: readonly ({ site_id: string } & object)[];
  events: readonly { site_id: string; seq: number }[];
  /** The batch's last seq: every shard holds all its events through it once the batch is in. */
  through: number;
}

/**
 * Writes a batch to the shards' local tables, shard after shard, each as the single node does: its visits, then its
 * events above its position (the commit of its part), then the mark. A crash between two shards leaves the first
 * one ahead; the next batch starts at the lowest position and each shard takes only what it lacks.
 */
export async function insertIntoShards(
  cluster: ClickHouseCluster,
  positions: Map<ClusterShard, number>,
  batch: ShardedBatch,
  beforeEventsInsert?: () => void | Promise<void>,
  queryIdOf: (table: string) => string | undefined = () => undefined,
): Promise<void> {
  const siteIds = [...new Set([...batch.visits.map((visit) => visit.site_id), ...batch.events.map((event) => event.site_id)])];
  const shardOf = await cluster.shardsOfSites(siteIds);
  for (const shard of cluster.shards) {
    const position = positions.get(shard) ?? 0;
    // Its part of this batch landed already (visits go before events, the mark after them).
    if (position >= batch.through) continue;
    await shard.client.insert(localTableOf('signed_visits'), batch.visits.filter((visit) => shardOf.get(visit.site_id) === shard), { queryId: queryIdOf('signed_visits') });
    const bindings = batch.bindings.filter((binding) => shardOf.get(binding.site_id) === shard);
    if (bindings.length > 0) await shard.client.insert(localTableOf('identity_bindings'), bindings, { queryId: queryIdOf('identity_bindings') });
    const events = batch.events.filter((event) => event.seq > position && shardOf.get(event.site_id) === shard);
    if (events.length > 0) {
      await beforeEventsInsert?.();
      await shard.client.insert(localTableOf('events'), events, { queryId: queryIdOf('events') });
    }
    await shard.client.insert(localTableOf('shipping_marks'), [{ through: batch.through }]);
  }
}

/** `ALTER TABLE … DELETE WHERE` on a table: on a single node as is, on a cluster on every shard's local table. */
export async function deleteRowsEverywhere(clickhouse: ClickHouse, table: 'events' | 'signed_visits' | 'identity_bindings', where: SqlText): Promise<void> {
  if (clickhouse.cluster === undefined) {
    await clickhouse.exec(sql`ALTER TABLE ${identifier(table)} DELETE WHERE ${where}`);
    return;
  }
  const cluster = await clusterOf(clickhouse);
  for (const shard of cluster.shards) await shard.client.exec(sql`ALTER TABLE ${identifier(localTableOf(table))} DELETE WHERE ${where}`);
}
