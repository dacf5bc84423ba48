// The newest committed event per site (the freshness watermark of reports).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface SiteFreshness {
  site_id: string;
  max_seq: number;
  max_received_at: number;
}

const statements = preparedOnce((db) => ({
  raise: db.prepare<SiteFreshness>(
    `INSERT INTO report_sites (site_id, max_seq, max_received_at) VALUES (:site_id, :max_seq, :max_received_at)
     ON CONFLICT (site_id) DO UPDATE SET max_seq = max(max_seq, excluded.max_seq),
       max_received_at = max(max_received_at, excluded.max_received_at)`,
  ),
  read: db.prepare<[string], SiteFreshness>('SELECT site_id, max_seq, max_received_at FROM report_sites WHERE site_id = ?'),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_sites WHERE site_id = ?'),
}));

export function raiseSiteFreshness(db: Db, row: SiteFreshness): void {
  statements(db).raise.run(row);
}

export function readSiteFreshness(db: Db, siteId: string): SiteFreshness | undefined {
  return statements(db).read.get(siteId);
}

export function deleteSiteFreshness(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
