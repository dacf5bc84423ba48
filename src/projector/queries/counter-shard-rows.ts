// Counter shards: read, write and delete one (site, dimension, grain, period, internal, shard) blob.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface ShardAddress {
  site_id: string;
  dim: number;
  grain: number;
  period: number;
  internal: number;
  shard: number;
}

// Positional parameters, in the primary key's order: binding by name costs about 1.5 µs per statement with this
// many parameters, and the projector runs a few of these per event.
const where = 'site_id = ? AND dim = ? AND internal = ? AND grain = ? AND period = ? AND shard = ?';
type KeyArgs = [site_id: string, dim: number, internal: number, grain: number, period: number, shard: number];
const keyArgs = (a: ShardAddress): KeyArgs => [a.site_id, a.dim, a.internal, a.grain, a.period, a.shard];

const statements = preparedOnce((db) => ({
  read: db.prepare<KeyArgs, Buffer>(`SELECT entries FROM report_counters WHERE ${where}`).pluck(),
  write: db.prepare<[...KeyArgs, entries: Uint8Array]>(
    `INSERT INTO report_counters (site_id, dim, internal, grain, period, shard, entries)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (site_id, dim, internal, grain, period, shard) DO UPDATE SET entries = excluded.entries`,
  ),
  // One walk of the primary key for many periods of one (site, dimension, traffic kind, grain).
  range: db
    .prepare<ShardRangeParams, [number, number, Buffer]>(
      `SELECT period, shard, entries FROM report_counters
        WHERE site_id = :site_id AND dim = :dim AND internal = :internal AND grain = :grain AND period BETWEEN :first AND :last`,
    )
    .raw(),
  delete: db.prepare<KeyArgs>(`DELETE FROM report_counters WHERE ${where}`),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_counters WHERE site_id = ?'),
}));

export function readCounterShard(db: Db, address: ShardAddress): Buffer | undefined {
  return statements(db).read.get(...keyArgs(address)) as Buffer | undefined;
}

export interface ShardRangeParams {
  site_id: string;
  dim: number;
  internal: number;
  grain: number;
  /** First and last period, inclusive. */
  first: number;
  last: number;
}

/** Every shard of the periods first..last, as [period, shard, entries], in key order. */
export function listCounterShards(db: Db, params: ShardRangeParams): [number, number, Buffer][] {
  return statements(db).range.all(params);
}

export function writeCounterShard(db: Db, address: ShardAddress, entries: Uint8Array | undefined): void {
  if (entries) statements(db).write.run(...keyArgs(address), entries);
  else statements(db).delete.run(...keyArgs(address));
}

export function deleteCounterShardsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
