// The e-mail report subscriptions: one row per member, site and frequency.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export type Frequency = 'weekly' | 'monthly';

export interface SubscriptionRow {
  id: string;
  site_id: string;
  user_id: string;
  frequency: Frequency;
  created_at: string;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<SubscriptionRow>(
    `INSERT INTO email_report_subscriptions (id, site_id, user_id, frequency, created_at) VALUES (:id, :site_id, :user_id, :frequency, :created_at)
     ON CONFLICT (site_id, user_id, frequency) DO NOTHING`,
  ),
  ofMember: db.prepare<[string, string], SubscriptionRow>('SELECT * FROM email_report_subscriptions WHERE site_id = ? AND user_id = ? ORDER BY created_at, rowid'),
  find: db.prepare<[string], SubscriptionRow>('SELECT * FROM email_report_subscriptions WHERE id = ?'),
  setFrequency: db.prepare<{ id: string; frequency: Frequency }>(
    `UPDATE email_report_subscriptions SET frequency = :frequency WHERE id = :id
       AND NOT EXISTS (SELECT 1 FROM email_report_subscriptions o JOIN email_report_subscriptions s ON s.id = :id
                       WHERE o.site_id = s.site_id AND o.user_id = s.user_id AND o.frequency = :frequency AND o.id <> :id)`,
  ),
  remove: db.prepare<[string]>('DELETE FROM email_report_subscriptions WHERE id = ?'),
  all: db.prepare<[], SubscriptionRow>('SELECT * FROM email_report_subscriptions ORDER BY created_at, rowid'),
  removeOfSite: db.prepare<[string]>('DELETE FROM email_report_subscriptions WHERE site_id = ?'),
}));

/** False when the member already has this frequency for the site. */
export const insertSubscription = (db: Db, row: SubscriptionRow): boolean => statements(db).insert.run(row).changes > 0;
export const listSubscriptionsOfMember = (db: Db, siteId: string, userId: string): SubscriptionRow[] => statements(db).ofMember.all(siteId, userId);
export const findSubscription = (db: Db, id: string): SubscriptionRow | undefined => statements(db).find.get(id);
/** False when the member already has the other subscription at that frequency. */
export const setSubscriptionFrequency = (db: Db, id: string, frequency: Frequency): boolean => statements(db).setFrequency.run({ id, frequency }).changes > 0;
export const deleteSubscription = (db: Db, id: string): boolean => statements(db).remove.run(id).changes > 0;
export const listAllSubscriptions = (db: Db): SubscriptionRow[] => statements(db).all.all();
export const deleteSubscriptionsOfSite = (db: Db, siteId: string): void => void statements(db).removeOfSite.run(siteId);
