// Inserting events and finding repeats by (site_id, id): the acknowledging transaction's only statements.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { StoredEventInput } from '../stored-event.ts';

const statements = preparedOnce((db) => ({
  exists: db.prepare<{ dedup_key: number; site_id: string; id: string }, { found: number }>(
    'SELECT 1 AS found FROM events WHERE dedup_key = :dedup_key AND site_id = :site_id AND id = :id',
  ),
  insert: db.prepare<StoredEventInput & { received_at: number }>(
    // id is virtual (read from raw); id_override keeps the canonical id only where SQL would read raw's otherwise.
    `INSERT INTO events (site_id, id_override, dedup_key, type, ts, received_at, anon_id, user_id, path, query, source, utm_source,
       utm_medium, utm_campaign, browser, os, device_type, country, region, city, is_bot, is_internal, revenue_minor,
       revenue_currency, raw)
     VALUES (:site_id, CASE WHEN json_valid(:raw) THEN CASE WHEN lower(json_extract(:raw, '$.id')) = :id THEN NULL ELSE :id END ELSE :id END,
       :dedup_key, :type, :ts,
       :received_at, :anon_id, :user_id, :path, :query, :source, :utm_source,
       :utm_medium, :utm_campaign, :browser, :os, :device_type, :country, :region, :city, :is_bot, :is_internal,
       :revenue_minor, :revenue_currency, :raw)`,
  ),
  deleteOfSite: db.prepare<[string]>('DELETE FROM events WHERE site_id = ?'),
}));

export function eventExists(db: Db, event: Pick<StoredEventInput, 'dedup_key' | 'site_id' | 'id'>): boolean {
  return statements(db).exists.get({ dedup_key: event.dedup_key, site_id: event.site_id, id: event.id }) !== undefined;
}

/** Returns the new row's seq. */
export function insertEvent(db: Db, event: StoredEventInput, receivedAt: number): number {
  return Number(statements(db).insert.run({ ...event, received_at: receivedAt }).lastInsertRowid);
}

export function deleteEventsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
