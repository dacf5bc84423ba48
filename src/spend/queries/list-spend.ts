// One page of a workspace's spend rows of a day range, ordered by (day, id).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { SpendRow } from './spend-writes.ts';

export interface ListSpendParams {
  workspace_id: string;
  from_day: string;
  to_day: string;
  /** null: every source. */
  source: string | null;
  /** null: every campaign. */
  campaign: string | null;
  /** The (day, id) of the last row of the previous page; '' before the first. */
  after_day: string;
  after_id: string;
  limit: number;
}

const statements = preparedOnce((db) => ({
  page: db.prepare<ListSpendParams, SpendRow>(
    `SELECT * FROM spend
      WHERE workspace_id = :workspace_id AND day BETWEEN :from_day AND :to_day AND (day, id) > (:after_day, :after_id)
        AND (:source IS NULL OR source = :source) AND (:campaign IS NULL OR campaign = :campaign)
      ORDER BY day, id LIMIT :limit`,
  ),
}));

export function listSpendRows(db: Db, params: ListSpendParams): SpendRow[] {
  return statements(db).page.all(params);
}
