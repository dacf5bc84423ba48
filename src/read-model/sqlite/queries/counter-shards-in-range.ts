// Counter shards of one site, dimension and traffic kind over a run of periods of one grain (all shards, or one).
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface ShardRangeParams {
  site_id: string;
  dim: number;
  internal: number;
  grain: number;
  from_period: number;
  to_period: number;
}

const range = 'site_id = :site_id AND dim = :dim AND internal = :internal AND grain = :grain AND period BETWEEN :from_period AND :to_period';

const statements = preparedOnce((db) => ({
  all: db.prepare<ShardRangeParams, [number, Buffer]>(`SELECT period, entries FROM report_counters WHERE ${range}`).raw(),
  one: db.prepare<ShardRangeParams & { shard: number }, [number, Buffer]>(`SELECT period, entries FROM report_counters WHERE ${range} AND shard = :shard`).raw(),
}));

/** [period, entries] rows. */
export function listCounterShards(db: Db, params: ShardRangeParams, shard?: number): [number, Buffer][] {
  return shard === undefined ? statements(db).all.all(params) : statements(db).one.all({ ...params, shard });
}
