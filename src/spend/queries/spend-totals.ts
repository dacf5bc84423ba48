// Spend of a workspace's day range summed per (source, medium, campaign, currency), exactly (ROI). The sums are
// bigints added up here: SQLite's sum() fails with "integer overflow" past 2^63, and better-sqlite3 would hand a sum
// past 2^53 back as an inexact number. Each entry's amount is at most 2^53 (spend-entry.ts), so rows read exactly.
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
  amount_minor: bigint;
}

interface SpendAmountRow {
  source: string;
  medium: string | null;
  campaign: string | null;
  currency: string;
  amount_minor: number;
}

const statements = preparedOnce((db) => ({
  amounts: db.prepare<SpendTotalsParams, SpendAmountRow>(
    `SELECT source, medium, campaign, currency, amount_minor FROM spend
      WHERE workspace_id = :workspace_id AND day BETWEEN :from_day AND :to_day
      ORDER BY source, medium, campaign, currency`,
  ),
}));

/** One row per (source, medium, campaign, currency), in that order (null medium and campaign first). */
export function sumSpend(db: Db, params: SpendTotalsParams): SpendTotalRow[] {
  const totals: SpendTotalRow[] = [];
  let last: SpendTotalRow | undefined;
  for (const row of statements(db).amounts.iterate(params)) {
    if (last && last.source === row.source && last.medium === row.medium && last.campaign === row.campaign && last.currency === row.currency) {
      last.amount_minor += BigInt(row.amount_minor);
    } else {
      last = { ...row, amount_minor: BigInt(row.amount_minor) };
      totals.push(last);
    }
  }
  return totals;
}
