// `sightline clickhouse init` on a cluster (CLICKHOUSE_CLUSTER), without ZooKeeper: every host of the cluster gets the
// local tables and the Distributed ones over them, and records its own schema version; a second run applies nothing;
// what cannot work is refused with a message naming the setting (a cluster the server does not know, a database made
// for the other mode). And the statement rewriting itself, case by case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse } from '../../src/clickhouse/client.ts';
import { clusterStatements } from '../../src/clickhouse/cluster.ts';
import { applyClickHouseSchema, latestClickHouseSchemaVersion } from '../../src/clickhouse/schema.ts';
import { sql } from '../../src/clickhouse/sql-literal.ts';
import { startClickHouseCluster, type ClickHouseTestCluster } from './_server.ts';

describe('the schema on a cluster', () => {
  let cluster: ClickHouseTestCluster;
  beforeAll(async () => {
    cluster = await startClickHouseCluster();
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
  });

  const client = (database: string, options: { cluster?: string; shard?: 0 | 1 } = {}) =>
    createClickHouse({ url: cluster.shards[options.shard ?? 0].url, database, timeoutMs: 10_000, cluster: options.cluster });

  it('creates local and Distributed tables on every host, each recording its version; a second run applies nothing', async () => {
    const entry = client('sightline', { cluster: cluster.name });
    expect(await applyClickHouseSchema(entry)).toEqual(Array.from({ length: latestClickHouseSchemaVersion }, (_, index) => index + 1));
    for (const shard of [0, 1] as const) {
      const host = client('sightline', { shard });
      const tables = await host.query<{ name: string; engine: string }>(sql`SELECT name, engine FROM system.tables WHERE database = 'sightline' ORDER BY name`);
      expect(tables).toEqual([
        { name: '.inner.event_marks_local', engine: 'AggregatingMergeTree' },
        { name: '.inner.visit_spans_local', engine: 'AggregatingMergeTree' },
        { name: 'event_marks', engine: 'Distributed' },
        { name: 'event_marks_local', engine: 'MaterializedView' },
        { name: 'events', engine: 'Distributed' },
        { name: 'events_local', engine: 'ReplacingMergeTree' },
        { name: 'identity_bindings', engine: 'Distributed' },
        { name: 'identity_bindings_local', engine: 'ReplacingMergeTree' },
        { name: 'schema_versions', engine: 'TinyLog' },
        { name: 'shipping_marks', engine: 'Distributed' },
        { name: 'shipping_marks_local', engine: 'MergeTree' },
        { name: 'signed_visits', engine: 'Distributed' },
        { name: 'signed_visits_local', engine: 'CollapsingMergeTree' },
        { name: 'visit_spans', engine: 'Distributed' },
        { name: 'visit_spans_local', engine: 'MaterializedView' },
      ]);
      const [version] = await host.query<{ version: number }>(sql`SELECT max(version) AS version FROM schema_versions`);
      expect(version!.version).toBe(latestClickHouseSchemaVersion);
    }
    expect(await applyClickHouseSchema(entry)).toEqual([]);
    // Either host can be the entry node: both have the Distributed tables.
    expect(await applyClickHouseSchema(client('sightline', { cluster: cluster.name, shard: 1 }))).toEqual([]);
  });

  it.each([
    ['a cluster the servers do not know', () => client('unknown_cluster', { cluster: 'elsewhere' }), 'CLICKHOUSE_CLUSTER: ClickHouse at'],
    [
      'a database a single node made, used as a cluster',
      async () => {
        await applyClickHouseSchema(client('made_single'));
        return client('made_single', { cluster: cluster.name });
      },
      'was created for a single node (events is ReplacingMergeTree)',
    ],
    [
      'a database a cluster made, used as a single node',
      async () => {
        await applyClickHouseSchema(client('made_cluster', { cluster: cluster.name }));
        return client('made_cluster');
      },
      'was created for a cluster (events is Distributed): set CLICKHOUSE_CLUSTER',
    ],
  ])('refuses %s', async (_name, clientOf, message) => {
    await expect(applyClickHouseSchema(await clientOf())).rejects.toThrow(message);
  });

  it.each([
    [
      'a table with site_id: local, then Distributed by site',
      'CREATE TABLE IF NOT EXISTS events (\n  seq UInt64,\n  site_id String\n) ENGINE = MergeTree ORDER BY seq',
      [
        'CREATE TABLE IF NOT EXISTS events_local (\n  seq UInt64,\n  site_id String\n) ENGINE = MergeTree ORDER BY seq',
        "CREATE TABLE IF NOT EXISTS `events` AS `events_local` ENGINE = Distributed('two', 'db', 'events_local', sipHash64(site_id))",
      ],
    ],
    [
      'a table without site_id: never written through its Distributed table',
      'CREATE TABLE IF NOT EXISTS marks (through UInt64) ENGINE = MergeTree ORDER BY through',
      ['CREATE TABLE IF NOT EXISTS marks_local (through UInt64) ENGINE = MergeTree ORDER BY through', "CREATE TABLE IF NOT EXISTS `marks` AS `marks_local` ENGINE = Distributed('two', 'db', 'marks_local', rand())"],
    ],
    [
      'a column added: on both',
      'ALTER TABLE events ADD COLUMN IF NOT EXISTS x UInt8',
      ['ALTER TABLE events_local ADD COLUMN IF NOT EXISTS x UInt8', 'ALTER TABLE events ADD COLUMN IF NOT EXISTS x UInt8'],
    ],
    ['another ALTER: on the local table', 'ALTER TABLE events DELETE WHERE 1', ['ALTER TABLE events_local DELETE WHERE 1']],
    [
      'a materialized view: over the local table, with a Distributed table of its name',
      'CREATE MATERIALIZED VIEW IF NOT EXISTS marks\nENGINE = AggregatingMergeTree ORDER BY site_id\nAS SELECT site_id, maxState(seq) AS m FROM events GROUP BY site_id',
      [
        'CREATE MATERIALIZED VIEW IF NOT EXISTS marks_local ENGINE = AggregatingMergeTree ORDER BY site_id\nAS SELECT site_id, maxState(seq) AS m FROM events_local GROUP BY site_id',
        "CREATE TABLE IF NOT EXISTS `marks` AS `marks_local` ENGINE = Distributed('two', 'db', 'marks_local', rand())",
      ],
    ],
    ['filling a view from the rows there: host by host', 'INSERT INTO marks SELECT site_id FROM events GROUP BY site_id', ['INSERT INTO marks_local SELECT site_id FROM events_local GROUP BY site_id']],
    [
      'copying a table into another: host by host, every table read its local one',
      'INSERT INTO signed_visits SELECT a FROM (SELECT * FROM visits FINAL) WHERE a NOT IN (SELECT a FROM signed_visits)',
      ['INSERT INTO signed_visits_local SELECT a FROM (SELECT * FROM visits_local FINAL) WHERE a NOT IN (SELECT a FROM signed_visits_local)'],
    ],
    ['a table dropped: its Distributed table, then the local one', 'DROP TABLE IF EXISTS visits', ['DROP TABLE IF EXISTS visits', 'DROP TABLE IF EXISTS visits_local']],
  ])('rewrites %s', (_name, statement, expected) => {
    expect(clusterStatements(statement, 'two', 'db')).toEqual(expected);
  });

  it('refuses a statement it has no cluster form for', () => {
    expect(() => clusterStatements('CREATE MATERIALIZED VIEW v AS SELECT 1', 'two', 'db')).toThrow('no cluster form');
  });
});
