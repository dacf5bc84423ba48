// The traffic alert rules of a site, and the claim of a firing (at most one per rule per hour).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export type AlertKind = 'traffic_spike' | 'traffic_drop';

export interface AlertRow {
  id: string;
  site_id: string;
  kind: AlertKind;
  threshold: number;
  /** JSON array of user ids. */
  recipients: string;
  endpoint_id: string | null;
  created_at: string;
  last_fired_at: number | null;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<AlertRow>(
    `INSERT INTO alerts (id, site_id, kind, threshold, recipients, endpoint_id, created_at, last_fired_at)
     VALUES (:id, :site_id, :kind, :threshold, :recipients, :endpoint_id, :created_at, :last_fired_at)`,
  ),
  ofSite: db.prepare<[string], AlertRow>('SELECT * FROM alerts WHERE site_id = ? ORDER BY created_at, rowid'),
  count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM alerts WHERE site_id = ?'),
  find: db.prepare<[string, string], AlertRow>('SELECT * FROM alerts WHERE site_id = ? AND id = ?'),
  update: db.prepare<Pick<AlertRow, 'id' | 'threshold' | 'recipients' | 'endpoint_id'>>(
    'UPDATE alerts SET threshold = :threshold, recipients = :recipients, endpoint_id = :endpoint_id WHERE id = :id',
  ),
  byId: db.prepare<[string], AlertRow>('SELECT * FROM alerts WHERE id = ?'),
  setRecipients: db.prepare<[string, string]>('UPDATE alerts SET recipients = ? WHERE id = ?'),
  remove: db.prepare<[string, string]>('DELETE FROM alerts WHERE site_id = ? AND id = ?'),
  removeOfSite: db.prepare<[string]>('DELETE FROM alerts WHERE site_id = ?'),
  all: db.prepare<[], AlertRow>('SELECT * FROM alerts ORDER BY site_id, created_at, rowid'),
  claim: db.prepare<{ id: string; now: number; quiet_ms: number }>(
    'UPDATE alerts SET last_fired_at = :now WHERE id = :id AND (last_fired_at IS NULL OR last_fired_at <= :now - :quiet_ms)',
  ),
}));

export const insertAlert = (db: Db, row: AlertRow): void => void statements(db).insert.run(row);
export const listAlertsOfSite = (db: Db, siteId: string): AlertRow[] => statements(db).ofSite.all(siteId);
export const countAlertsOfSite = (db: Db, siteId: string): number => statements(db).count.get(siteId)!.n;
export const findAlert = (db: Db, siteId: string, id: string): AlertRow | undefined => statements(db).find.get(siteId, id);
export const findAlertById = (db: Db, id: string): AlertRow | undefined => statements(db).byId.get(id);
export const setAlertRecipients = (db: Db, id: string, recipients: string): void => void statements(db).setRecipients.run(recipients, id);
export const updateAlert = (db: Db, row: Pick<AlertRow, 'id' | 'threshold' | 'recipients' | 'endpoint_id'>): void => void statements(db).update.run(row);
export const deleteAlert = (db: Db, siteId: string, id: string): boolean => statements(db).remove.run(siteId, id).changes > 0;
export const deleteAlertsOfSite = (db: Db, siteId: string): void => void statements(db).removeOfSite.run(siteId);
export const listAllAlerts = (db: Db): AlertRow[] => statements(db).all.all();
/** True when this call fired the rule: it had not fired within `quietMs` before `now`. */
export const claimAlertFiring = (db: Db, id: string, now: number, quietMs: number): boolean => statements(db).claim.run({ id, now, quiet_ms: quietMs }).changes > 0;
