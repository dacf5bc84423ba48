// Revenue rollup rows: add an amount to (site, dimension value, grain, period, internal, currency).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface RevenueDelta {
  site_id: string;
  dim: number;
  grain: number;
  period: number;
  internal: number;
  value_id: number;
  currency: string;
  amount_minor: number;
}

const statements = preparedOnce((db) => ({
  add: db.prepare<RevenueDelta>(
    `INSERT INTO report_revenue (site_id, dim, grain, period, internal, value_id, currency, amount_minor)
     VALUES (:site_id, :dim, :grain, :period, :internal, :value_id, :currency, :amount_minor)
     ON CONFLICT (site_id, dim, internal, grain, period, value_id, currency)
     DO UPDATE SET amount_minor = amount_minor + excluded.amount_minor`,
  ),
  dropZero: db.prepare<Omit<RevenueDelta, 'amount_minor'>>(
    `DELETE FROM report_revenue WHERE site_id = :site_id AND dim = :dim AND grain = :grain AND period = :period
       AND internal = :internal AND value_id = :value_id AND currency = :currency AND amount_minor = 0`,
  ),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_revenue WHERE site_id = ?'),
}));

export function addRevenue(db: Db, delta: RevenueDelta): void {
  statements(db).add.run(delta);
  if (delta.amount_minor < 0) {
    const { amount_minor: _amount, ...address } = delta;
    statements(db).dropZero.run(address);
  }
}

export function deleteRevenueOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
