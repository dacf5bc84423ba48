// Trimming the event log (LOG_RETAIN_DAYS, docs/clickhouse.md "Trimming the SQLite log"): the oldest events that
// ClickHouse holds leave the log in bounded batches, so the box's disk stops growing with history. The event log's
// owner deletes; what may be deleted (a seq ClickHouse holds on every shard, an age) is decided by the caller
// (src/clickhouse/log-trimming.ts). Walked by seq (the primary key) from the oldest: a batch is one short write
// transaction, so ingest's group commits never wait long behind it.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface TrimBatch {
  /** Only events up to this seq (the position every ClickHouse shard holds). */
  through_seq: number;
  /** Only events with an event time before this (epoch ms). */
  before_ts: number;
  /** At most this many events in one batch. */
  limit: number;
}

const statements = preparedOnce((db) => ({
  trim: db.prepare<TrimBatch>(
    `DELETE FROM events WHERE seq IN (
       SELECT seq FROM events WHERE seq <= :through_seq AND ts < :before_ts ORDER BY seq LIMIT :limit)`,
  ),
  oldest: db.prepare<[], number | null>('SELECT min(ts) FROM events').pluck(),
}));

/**
 * Deletes one batch of old shipped events; the number deleted (below `limit`: nothing more to trim now).
 * @example trimEventBatch(db, { through_seq: 120_000, before_ts: Date.parse('2026-03-01'), limit: 5000 }) // 5000
 */
export function trimEventBatch(db: Db, batch: TrimBatch): number {
  return statements(db).trim.run(batch).changes;
}

/** The oldest event time the log holds (null: empty), for the trimming's metric. */
export function oldestEventTs(db: Db): number | null {
  return statements(db).oldest.get() ?? null;
}
