// Revenue per value and currency of one site, dimension and traffic kind over a run of periods of one grain.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';
import type { ShardRangeParams } from './counter-shards-in-range.ts';

export interface RevenueRow {
  value_id: number;
  currency: string;
  amount_minor: number;
}

const statements = preparedOnce((db) => ({
  range: db.prepare<ShardRangeParams, RevenueRow>(
    `SELECT value_id, currency, sum(amount_minor) AS amount_minor FROM report_revenue
      WHERE site_id = :site_id AND dim = :dim AND internal = :internal AND grain = :grain
        AND period BETWEEN :from_period AND :to_period
      GROUP BY value_id, currency`,
  ),
}));

export function listRevenue(db: Db, params: ShardRangeParams): RevenueRow[] {
  return statements(db).range.all(params);
}
