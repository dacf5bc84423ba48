// Whether a dimension value is still counted anywhere, and forgetting the text of one that is not: a GDPR deletion
// takes the subject's paths, pages, campaigns and places out of the value dictionary when nobody else has them.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  shards: db.prepare<{ site_id: string; dim: number; shard: number }, Buffer>(
    'SELECT entries FROM report_counters WHERE site_id = :site_id AND dim = :dim AND shard = :shard',
  ).pluck(),
  revenue: db.prepare<{ site_id: string; dim: number; value_id: number }, number>(
    'SELECT 1 FROM report_revenue WHERE site_id = :site_id AND dim = :dim AND value_id = :value_id LIMIT 1',
  ).pluck(),
  // Ids stay dense and are never reused (a report's cache of id → text only grows): the row stays, its text goes.
  forget: db.prepare<{ site_id: string; dim: number; value_id: number }>(
    `UPDATE report_values SET value = char(0) || 'forgotten' || char(0) || value_id
      WHERE site_id = :site_id AND dim = :dim AND value_id = :value_id`,
  ),
}));

/** The counter shards (every period, both traffic kinds) holding a shard of value ids of one dimension. */
export function listShardsOfValues(db: Db, siteId: string, dim: number, shard: number): Buffer[] {
  return statements(db).shards.all({ site_id: siteId, dim, shard });
}

export function hasRevenue(db: Db, siteId: string, dim: number, valueId: number): boolean {
  return statements(db).revenue.get({ site_id: siteId, dim, value_id: valueId }) !== undefined;
}

export function forgetValueText(db: Db, siteId: string, dim: number, valueId: number): void {
  statements(db).forget.run({ site_id: siteId, dim, value_id: valueId });
}
