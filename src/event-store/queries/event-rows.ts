// Inserting events and finding repeats by (site_id, id): the acknowledging transaction's only statements.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { StoredEventInput } from '../stored-event.ts';

const statements = preparedOnce((db) => ({
  exists: db.prepare<{ dedup_key: number; site_id: string; id: string }, { found: number }>(
    'SELECT 1 AS found FROM events WHERE dedup_key = :dedup_key AND site_id = :site_id AND id = :id',
  ),
  // id, anon_id and query are virtual (read from raw); the row is read back and an override is stored only where
  // that reading differs from the canonical value (a repeated key, a URL the collector normalised).
  insert: db.prepare<StoredEventInput & { received_at: number }, StoredFromRaw>(
    `INSERT INTO events (site_id, dedup_key, type, ts, received_at, user_id, path, source, utm_source, utm_medium,
       utm_campaign, browser, os, device_type, country, region, city, is_bot, is_internal, revenue_minor, revenue_currency, raw)
     VALUES (:site_id, :dedup_key, :type, :ts, :received_at, :user_id, :path, :source, :utm_source, :utm_medium,
       :utm_campaign, :browser, :os, :device_type, :country, :region, :city, :is_bot, :is_internal, :revenue_minor,
       :revenue_currency, :raw)
     RETURNING seq, id, anon_id, query`,
  ),
  override: db.prepare<{ seq: number; id: string | null; anon_id: string | null; query: string | null }>(
    'UPDATE events SET id_override = :id, anon_id_override = :anon_id, query_override = :query WHERE seq = :seq',
  ),
  deleteOfSite: db.prepare<[string]>('DELETE FROM events WHERE site_id = ?'),
}));

export function eventExists(db: Db, event: Pick<StoredEventInput, 'dedup_key' | 'site_id' | 'id'>): boolean {
  return statements(db).exists.get({ dedup_key: event.dedup_key, site_id: event.site_id, id: event.id }) !== undefined;
}

interface StoredFromRaw {
  seq: number;
  id: string | null;
  anon_id: string | null;
  query: string | null;
}

/** Returns the new row's seq. */
export function insertEvent(db: Db, event: StoredEventInput, receivedAt: number): number {
  const { insert, override } = statements(db);
  const read = insert.get({ ...event, received_at: receivedAt })!;
  if (read.id !== event.id || read.anon_id !== event.anon_id || read.query !== event.query) {
    override.run({
      seq: read.seq,
      id: read.id === event.id ? null : event.id,
      anon_id: read.anon_id === event.anon_id ? null : event.anon_id,
      // '' stands for "no query" (a canonical query is never empty: the collector stores null then).
      query: read.query === event.query ? null : (event.query ?? ''),
    });
  }
  return read.seq;
}

export function deleteEventsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
