// Spend of a workspace's day range summed per (source, medium, campaign, currency), exactly (ROI).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface SpendTotalsParams {
  workspace_id: string;
  from_day: string;
  to_day: string;
}

export interface SpendTotalRow {
  source: string;
  medium: string | null;
  campaign: string | null;
  currency: string;
  amount_minor: number;
}

const statements = preparedOnce((db) => ({
  totals: db.prepare<SpendTotalsParams, SpendTotalRow>(
    `SELECT source, medium, campaign, currency, sum(amount_minor) AS amount_minor FROM spend
      WHERE workspace_id = :workspace_id AND day BETWEEN :from_day AND :to_day
      GROUP BY source, medium, campaign, currency
      ORDER BY source, medium, campaign, currency`,
  ),
}));

export function sumSpend(db: Db, params: SpendTotalsParams): SpendTotalRow[] {
  return statements(db).totals.all(params);
}
