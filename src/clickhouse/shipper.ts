// Ships the event log, the visits derived from it and the identity bindings its events made to ClickHouse, exactly once, in ingest order and in large
// batches. The position is ClickHouse's own: each batch starts after the highest seq the events table holds, so a
// crash anywhere (after an insert and before anything else, between the visits' insert and the events', while
// ClickHouse restarts) neither loses nor doubles an event: an insert that landed moves the position, one that did not
// is sent again. Within a batch, visits and bindings go first and events last: the events' insert is the batch's commit.
// Visits are versioned (the projector's position when read): a visit sent again replaces its older versions, and
// a visit a late event merged away gets a tombstone. docs/clickhouse.md has the whole argument.
// On a cluster (CLICKHOUSE_CLUSTER) the position is per shard and a batch starts at the lowest (cluster.ts).
import type { Db } from '../db/open.ts';
import type { ClickHouse } from './client.ts';
import { clusterOf, insertIntoShards, shardPositions, type ClusterShard } from './cluster.ts';
import { joinSql, sql } from './sql-literal.ts';
import { readShippingBatch, type ShippedEventRow, type ShippedVisitRow } from './sqlite-source.ts';

export interface ShipperOptions {
  db: Db;
  clickhouse: ClickHouse;
  /** Events per batch (default 50,000). */
  batchSize?: number;
  /** Tests only: runs between a batch's visits insert and its events insert (throw to simulate a crash there). */
  beforeEventsInsert?: () => void | Promise<void>;
}

export interface ShippedBatch {
  events: number;
  visits: number;
  tombstones: number;
  /** Identity binding rows (one per binding the batch's events made). */
  bindings: number;
  /** The highest seq ClickHouse holds after the batch. */
  through: number;
}

export interface Shipper {
  /** The highest seq ClickHouse's events table holds (0 when empty): where the next batch starts. */
  shippedThrough(): Promise<number>;
  /** Ships one batch; events: 0 when ClickHouse holds every projected event. */
  shipBatch(): Promise<ShippedBatch>;
  /** Ships batches until ClickHouse holds every event the projector has passed; the total shipped. */
  shipAll(): Promise<{ events: number; batches: number; through: number }>;
}

interface LiveVisit {
  site_id: string;
  anon_id: string;
  is_internal: number;
  visit_id: number;
  start_ts: number;
  end_ts: number;
}

/**
 * The identity bindings a batch's events make (an event naming a user binds its anon_id, as the projector binds
 * it), each with the batch's first event that made it: the same batch read again gives the same rows.
 */
export function bindingsOf(events: readonly ShippedEventRow[]): { site_id: string; user_id: string; anon_id: string; seq: number; ts: number }[] {
  const first = new Map<string, { site_id: string; user_id: string; anon_id: string; seq: number; ts: number }>();
  for (const event of events) {
    if (event.user_id === null) continue;
    const key = `${event.site_id}\u0000${event.user_id}\u0000${event.anon_id}`;
    if (!first.has(key)) first.set(key, { site_id: event.site_id, user_id: event.user_id, anon_id: event.anon_id, seq: event.seq, ts: event.ts });
  }
  return [...first.values()];
}

/**
 * ClickHouse's partition of an event's ts: its month (schema.sql: toYYYYMM(toDate(intDiv(ts, 1000)))) in the server's
 * time zone. Time zones move by multiples of 15 minutes, so one answer holds for a 15-minute slot.
 */
export function monthPartitions(timeZone: string): (ts: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric' });
  const bySlot = new Map<number, number>();
  return (ts) => {
    const slot = Math.floor(ts / 900_000);
    let month = bySlot.get(slot);
    if (month === undefined) {
      const parts = format.formatToParts(slot * 900_000);
      month = Number(parts.find((part) => part.type === 'year')!.value) * 100 + Number(parts.find((part) => part.type === 'month')!.value);
      bySlot.set(slot, month);
    }
    return month;
  };
}

/**
 * The events of a batch up to the first of another partition. An insert is atomic within a partition only: a crash
 * between two of its parts would keep the later seqs without the earlier ones, and resuming after the highest seq
 * ClickHouse holds would skip the gap. A batch of one partition lands whole or not at all.
 */
export function leadingPartition<Event extends { ts: number }>(events: readonly Event[], partitionOf: (ts: number) => number): readonly Event[] {
  if (events.length === 0) return events;
  const first = partitionOf(events[0]!.ts);
  const cut = events.findIndex((event) => partitionOf(event.ts) !== first);
  return cut === -1 ? events : events.slice(0, cut);
}

const visitorKey = (visit: { site_id: string; anon_id: string; is_internal: number }) => `${visit.site_id}\u0000${visit.anon_id}\u0000${visit.is_internal}`;

export function createShipper({ db, clickhouse, batchSize = 50_000, beforeEventsInsert }: ShipperOptions): Shipper {
  /** A cluster's shards and where each stands, or undefined on a single node. */
  async function shards(): Promise<{ cluster: Awaited<ReturnType<typeof clusterOf>>; positions: Map<ClusterShard, number> } | undefined> {
    if (clickhouse.cluster === undefined) return undefined;
    const cluster = await clusterOf(clickhouse);
    return { cluster, positions: await shardPositions(cluster) };
  }

  let partitions: ((ts: number) => number) | undefined;
  /** The server's time zone decides its partitions; asked once (a cluster's hosts share it, docs/clickhouse.md). */
  async function partitionOf(): Promise<(ts: number) => number> {
    if (!partitions) {
      const [row] = await clickhouse.query<{ zone: string }>(sql`SELECT timezone() AS zone`);
      partitions = monthPartitions(row?.zone ?? 'UTC');
    }
    return partitions;
  }

  async function shippedThrough(): Promise<number> {
    const sharded = await shards();
    // Every shard holds all its events up to its own position: the cluster holds every event up to the lowest.
    if (sharded) return Math.min(...sharded.positions.values());
    const [row] = await clickhouse.query<{ through: number }>(sql`SELECT max(seq) AS through FROM events`);
    return row?.through ?? 0;
  }

  /** Visits ClickHouse counts now that a shipped visit of the same visitor overlaps but does not name: merged away. */
  async function tombstonesFor(visits: readonly ShippedVisitRow[], version: number): Promise<(LiveVisit & Record<string, unknown>)[]> {
    if (visits.length === 0) return [];
    const byVisitor = new Map<string, ShippedVisitRow[]>();
    for (const visit of visits) byVisitor.set(visitorKey(visit), [...(byVisitor.get(visitorKey(visit)) ?? []), visit]);
    const visitors = [...byVisitor.values()].map(([first]) => [first!.site_id, first!.anon_id, first!.is_internal] as const);
    const tuples = joinSql(visitors.map(([siteId, anonId, internal]) => sql`(${siteId}, ${anonId}, ${internal})`), ', ');
    // Key columns only inside FINAL (every version of a visit shares them); `deleted` is tested after it.
    const live = await clickhouse.query<LiveVisit>(
      sql`SELECT site_id, anon_id, is_internal, visit_id, start_ts, end_ts FROM (
            SELECT site_id, anon_id, is_internal, visit_id, start_ts, end_ts, deleted FROM visits FINAL
            WHERE (site_id, anon_id, is_internal) IN (${tuples})) WHERE deleted = 0`,
      { max_query_size: 256 * 2 ** 20 },
    );
    const tombstones: (LiveVisit & Record<string, unknown>)[] = [];
    for (const visit of live) {
      const current = byVisitor.get(visitorKey(visit)) ?? [];
      if (current.some((shipped) => shipped.visit_id === visit.visit_id)) continue;
      if (!current.some((shipped) => shipped.start_ts <= visit.end_ts && visit.start_ts <= shipped.end_ts)) continue;
      tombstones.push({ ...visit, version, deleted: 1, source: '' });
    }
    return tombstones;
  }

  async function shipBatch(): Promise<ShippedBatch> {
    const sharded = await shards();
    const after = sharded ? Math.min(...sharded.positions.values()) : await shippedThrough();
    const batch = readShippingBatch(db, after, batchSize);
    if (batch.events.length === 0) return { events: 0, visits: 0, tombstones: 0, bindings: 0, through: after };
    // The visits of the events cut off are sent too, and again with their own batch: a newer version replaces them.
    const events = leadingPartition(batch.events, await partitionOf());
    const version = batch.projectedSeq;
    const tombstones = await tombstonesFor(batch.visits, version);
    const visits = [...batch.visits.map((visit) => ({ ...visit, version, deleted: 0 })), ...tombstones];
    const bindings = bindingsOf(events);
    const through = events[events.length - 1]!.seq;
    if (sharded) {
      await insertIntoShards(sharded.cluster, sharded.positions, { visits, bindings, events, through }, beforeEventsInsert);
    } else {
      await clickhouse.insert('visits', visits);
      if (bindings.length > 0) await clickhouse.insert('identity_bindings', bindings);
      await beforeEventsInsert?.();
      await clickhouse.insert('events', events);
    }
    return { events: events.length, visits: batch.visits.length, tombstones: tombstones.length, bindings: bindings.length, through };
  }

  return {
    shippedThrough,
    shipBatch,
    async shipAll() {
      let events = 0;
      let batches = 0;
      for (;;) {
        const shipped = await shipBatch();
        if (shipped.events === 0) return { events, batches, through: shipped.through };
        events += shipped.events;
        batches++;
      }
    },
  };
}
