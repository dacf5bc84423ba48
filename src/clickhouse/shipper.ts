// Ships the event log, the visits derived from it and the identity bindings its events made to ClickHouse, exactly once, in ingest order and in large
// batches. The position is ClickHouse's own: each batch starts after the highest seq the events table holds, so a
// crash anywhere (after an insert and before anything else, between the visits' insert and the events', while
// ClickHouse restarts) neither loses nor doubles an event: an insert that landed moves the position, one that did not
// is sent again. Within a batch, visits and bindings go first and events last: the events' insert is the batch's commit.
// No row is ever stored twice, so reads need no FINAL: every insert carries this database's fixed query_id (the
// server refuses a second one while it runs), and before its first batch and after any failure the shipper waits
// until none of its inserts is still running on the server (a timed-out insert can still land), then reads the
// position. Visits are signed rows (schema.sql version 5): the shipper reads what ClickHouse counts live for the
// batch's visitors and sends only the difference, -1 for a row that changed or was merged away, +1 for the new one.
// docs/clickhouse.md has the whole argument. On a cluster (CLICKHOUSE_CLUSTER) the position is per shard and a batch
// starts at the lowest (cluster.ts).
import type { Db } from '../db/open.ts';
import type { ClickHouse } from './client.ts';
import { ClickHouseUnavailableError } from './client.ts';
import { clusterOf, insertIntoShards, shardPositions, type ClusterShard } from './cluster.ts';
import { withoutDeleted } from './deletion-sql.ts';
import { pendingDeletionsOf } from './deletions.ts';
import { joinSql, sql, SqlText } from './sql-literal.ts';
import { eventAtSeq, readShippingBatch, type ShippedEventRow, type ShippedVisitRow } from './sqlite-source.ts';
import { highestSeqIssued } from '../event-store/queries/newest-events.ts';

/** ClickHouse's position is not this log's (another data directory filled the database): nothing is shipped. */
export class ForeignPositionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForeignPositionError';
  }
}

export interface ShipperOptions {
  db: Db;
  clickhouse: ClickHouse;
  /** Events per batch (default 50,000). */
  batchSize?: number;
  /** Tests only: runs between a batch's visits insert and its events insert (throw to simulate a crash there). */
  beforeEventsInsert?: () => void | Promise<void>;
  /** How long a batch waits for an earlier insert still running on the server before failing (default 60 s). */
  settleTimeoutMs?: number;
}

export interface ShippedBatch {
  events: number;
  /** The current visits of the batch's visitors (read from SQLite). */
  visits: number;
  /** Visits a merge took away: sent as a -1 row alone. */
  tombstones: number;
  /** Signed visit rows sent (-1 and +1): only what differs from what ClickHouse counted live. */
  visitRows: number;
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

/** A visit row of signed_visits: a visit's values with +1 (counted) or -1 (cancelling an earlier +1 of the same values). */
export type SignedVisitRow = ShippedVisitRow & { sign: 1 | -1 };

/** signed_visits' columns besides sign, in schema order: a live row is one whose values net a sum(sign) of 1. */
export const visitColumns = [
  'site_id', 'anon_id', 'is_internal', 'visit_id', 'start_ts', 'end_ts', 'events', 'pageviews', 'entry_seq', 'entry_path', 'entry_query',
  'source', 'utm_source', 'utm_medium', 'utm_campaign', 'browser', 'os', 'device_type', 'country', 'region', 'city', 'exit_ts',
  'exit_seq', 'exit_path', 'exit_query',
] as const satisfies readonly (keyof ShippedVisitRow)[];

const sameVisit = (a: ShippedVisitRow, b: ShippedVisitRow) => visitColumns.every((column) => a[column] === b[column]);

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

export function createShipper({ db, clickhouse, batchSize = 50_000, beforeEventsInsert, settleTimeoutMs = 60_000 }: ShipperOptions): Shipper {
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

  /**
   * The signed rows that make ClickHouse count exactly `visits` for their visitors: it reads the rows it counts live
   * now (values whose sum(sign) is positive), then a -1 for each such row that a shipped visit changed (same visit_id)
   * or that overlaps one without being named (merged away), and a +1 for each shipped visit not live as it is. Sent
   * again (a batch retried), the same visits give no row at all. A live row of an earlier version starts within the
   * shipped visit (a visit only grows: a late event extends it or merges two), so the read covers, per site, starts
   * from the batch's first visit start to its last visit end: a range of the sorting key. Rows a pending deletion names
   * are left out, as reads leave them out: they get no -1, and the deletion's mutation removes them.
   */
  async function visitChanges(visits: readonly ShippedVisitRow[]): Promise<{ rows: SignedVisitRow[]; tombstones: number }> {
    if (visits.length === 0) return { rows: [], tombstones: 0 };
    const byVisitor = new Map<string, ShippedVisitRow[]>();
    const spans = new Map<string, { from: number; to: number }>();
    for (const visit of visits) {
      byVisitor.set(visitorKey(visit), [...(byVisitor.get(visitorKey(visit)) ?? []), visit]);
      const span = spans.get(visit.site_id);
      spans.set(visit.site_id, { from: Math.min(span?.from ?? visit.start_ts, visit.start_ts), to: Math.max(span?.to ?? visit.end_ts, visit.end_ts) });
    }
    // The visitors travel as a table of the query (external data), not as literals: a batch of 50,000 events can
    // name more visitors than a statement may hold (max_ast_elements).
    const visitors = [...byVisitor.values()].map(([first]) => ({ site_id: first!.site_id, anon_id: first!.anon_id, is_internal: first!.is_internal }));
    const ranges = [...spans].map(([siteId, span]) => sql`(site_id = ${siteId} AND start_ts >= ${span.from} AND start_ts <= ${span.to})`);
    const columns = new SqlText(visitColumns.join(', '));
    const live = await clickhouse.query<ShippedVisitRow>(
      sql`SELECT ${columns} FROM signed_visits
          WHERE (${joinSql(ranges, ' OR ')}) AND (site_id, anon_id, is_internal) IN batch_visitors${withoutDeleted(pendingDeletionsOf(db, [...spans.keys()]), 'visits')}
          GROUP BY ${columns} HAVING sum(sign) > 0`,
      { max_query_size: 256 * 2 ** 20 },
      [{ name: 'batch_visitors', columns: { site_id: 'String', anon_id: 'String', is_internal: 'UInt8' }, rows: visitors }],
    );
    const cancelled: SignedVisitRow[] = [];
    let tombstones = 0;
    for (const row of live) {
      const current = byVisitor.get(visitorKey(row)) ?? [];
      const named = current.find((shipped) => shipped.visit_id === row.visit_id);
      if (named) {
        if (!sameVisit(named, row)) cancelled.push({ ...row, sign: -1 });
      } else if (current.some((shipped) => shipped.start_ts <= row.end_ts && row.start_ts <= shipped.end_ts)) {
        cancelled.push({ ...row, sign: -1 });
        tombstones++;
      }
    }
    const liveByVisitor = new Map<string, ShippedVisitRow[]>();
    for (const row of live) liveByVisitor.set(visitorKey(row), [...(liveByVisitor.get(visitorKey(row)) ?? []), row]);
    const added = visits
      .filter((visit) => !(liveByVisitor.get(visitorKey(visit)) ?? []).some((row) => sameVisit(row, visit)))
      .map((visit): SignedVisitRow => ({ ...visit, sign: 1 }));
    // Only the columns of signed_visits, in any order (JSONEachRow names them).
    const rows = [...cancelled, ...added].map((row) => Object.fromEntries([...visitColumns, 'sign'].map((column) => [column, row[column as keyof SignedVisitRow]])) as unknown as SignedVisitRow);
    return { rows, tombstones };
  }

  /** This database's inserts, by table: a fixed id, so the server runs at most one of each at a time. */
  const queryIdOf = (table: string) => `sightline_ship_${clickhouse.database}_${table}`;
  let unsettled = true;
  /**
   * Before the first batch and after a failed one: waits until no insert of this database's shipper runs on any host.
   * An insert whose request failed (a timeout, a dropped connection, a thread that died) may still be running and land
   * later; reading the position before it ends could send its rows again. Once none runs, the position is final: an
   * insert either landed or never will.
   */
  async function settle(): Promise<void> {
    const hosts = clickhouse.cluster === undefined ? [clickhouse] : (await clusterOf(clickhouse)).shards.map((shard) => shard.client);
    const deadline = Date.now() + settleTimeoutMs;
    for (const host of hosts) {
      for (;;) {
        const [row] = await host.query<{ running: number }>(sql`SELECT count() AS running FROM system.processes WHERE startsWith(query_id, ${queryIdOf('')})`);
        if (!row || row.running === 0) break;
        if (Date.now() > deadline) throw new ClickHouseUnavailableError(`ClickHouse at ${host.url}: an earlier insert of the shipper is still running`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    unsettled = false;
  }

  async function shipBatch(): Promise<ShippedBatch> {
    try {
      if (unsettled) await settle();
      return await shipOneBatch();
    } catch (error) {
      unsettled = true;
      throw error;
    }
  }

  /** The position this shipper's last batch left (checked positions need no second look). */
  let ownPosition: number | undefined;
  /**
   * The position must be this log's: a database filled from another data directory (two installs given one
   * CLICKHOUSE_DATABASE) holds other events under the same seqs, and shipping after its position would skip or mix
   * events. The lease (shipping-lease.ts) cannot see another data directory; this catches it once its events are in
   * ClickHouse. Checked when the position is not the one this shipper's last batch left: the first batch, after a
   * failure, or when someone else moved it. Refused when ClickHouse is past every seq this log ever issued, or (one
   * node) when its row at the position is not this log's event there; a seq this log no longer holds (deleted,
   * trimmed) cannot be compared and is let through.
   */
  async function expectOwnPosition(position: number, cluster: boolean): Promise<void> {
    if (position === 0 || position === ownPosition) return;
    const issued = highestSeqIssued(db);
    if (issued < position) {
      throw new ForeignPositionError(
        `ClickHouse database ${clickhouse.database} holds events through seq ${position}, past the end of this data directory's log (seq ${issued}): it was filled from another data directory, or this log is an older copy. Nothing is shipped: give each data directory its own CLICKHOUSE_DATABASE`,
      );
    }
    const own = eventAtSeq(db, position);
    // On a cluster the lowest shard's position may be a seq whose event went to another shard's batch in flight.
    if (own && !cluster) {
      const [row] = await clickhouse.query<{ n: number }>(sql`SELECT count() AS n FROM events WHERE site_id = ${own.site_id} AND ts = ${own.ts} AND seq = ${position} AND id = ${own.id}`);
      if (!row || row.n === 0) {
        throw new ForeignPositionError(
          `ClickHouse database ${clickhouse.database} holds another event than this data directory's under seq ${position}: it was filled from another data directory. Nothing is shipped: give each data directory its own CLICKHOUSE_DATABASE`,
        );
      }
    }
    ownPosition = position;
  }

  async function shipOneBatch(): Promise<ShippedBatch> {
    const sharded = await shards();
    const after = sharded ? Math.min(...sharded.positions.values()) : await shippedThrough();
    await expectOwnPosition(after, sharded !== undefined);
    const batch = readShippingBatch(db, after, batchSize);
    if (batch.events.length === 0) return { events: 0, visits: 0, tombstones: 0, visitRows: 0, bindings: 0, through: after };
    // The visits of the events cut off are sent too; with their own batch they are then live as they are: no row.
    const events = leadingPartition(batch.events, await partitionOf());
    const { rows: visits, tombstones } = await visitChanges(batch.visits);
    const bindings = bindingsOf(events);
    const through = events[events.length - 1]!.seq;
    if (sharded) {
      await insertIntoShards(sharded.cluster, sharded.positions, { visits, bindings, events, through }, beforeEventsInsert, queryIdOf);
    } else {
      await clickhouse.insert('signed_visits', visits, { queryId: queryIdOf('signed_visits') });
      if (bindings.length > 0) await clickhouse.insert('identity_bindings', bindings, { queryId: queryIdOf('identity_bindings') });
      await beforeEventsInsert?.();
      await clickhouse.insert('events', events, { queryId: queryIdOf('events') });
    }
    ownPosition = through;
    return { events: events.length, visits: batch.visits.length, tombstones, visitRows: visits.length, bindings: bindings.length, through };
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
