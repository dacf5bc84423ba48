// Inserts, updates and deletes spend rows; every statement is bounded to one workspace.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface SpendRow {
  id: string;
  workspace_id: string;
  site_id: string | null;
  day: string;
  source: string;
  medium: string | null;
  campaign: string | null;
  amount_minor: number;
  currency: string;
  created_at: string;
  updated_at: string;
}

export interface DeleteSpendRangeParams {
  workspace_id: string;
  from_day: string;
  to_day: string;
  /** null: every source. */
  source: string | null;
  /** null: every campaign. */
  campaign: string | null;
}

const columns = 'id, workspace_id, site_id, day, source, medium, campaign, amount_minor, currency, created_at, updated_at';

const statements = preparedOnce((db) => ({
  insert: db.prepare<SpendRow>(`INSERT INTO spend (${columns}) VALUES (${columns.replace(/(\w+)/g, ':$1')})`),
  update: db.prepare<SpendRow>(
    `UPDATE spend SET site_id = :site_id, day = :day, source = :source, medium = :medium, campaign = :campaign,
       amount_minor = :amount_minor, currency = :currency, updated_at = :updated_at
     WHERE id = :id AND workspace_id = :workspace_id`,
  ),
  deleteRange: db.prepare<DeleteSpendRangeParams>(
    `DELETE FROM spend WHERE workspace_id = :workspace_id AND day BETWEEN :from_day AND :to_day
       AND (:source IS NULL OR source = :source) AND (:campaign IS NULL OR campaign = :campaign)`,
  ),
  deleteOfSite: db.prepare<[string]>('DELETE FROM spend WHERE site_id = ?'),
}));

export function insertSpendRow(db: Db, row: SpendRow): void {
  statements(db).insert.run(row);
}

export function updateSpendRow(db: Db, row: SpendRow): void {
  statements(db).update.run(row);
}

/** Deletes the workspace's rows of the range (optionally of one source and/or campaign); returns how many. */
export function deleteSpendRange(db: Db, params: DeleteSpendRangeParams): number {
  return statements(db).deleteRange.run(params).changes;
}

export function deleteSpendOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
