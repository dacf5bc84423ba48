// Inserting events and confirming repeats by (site_id, id): the acknowledging transaction's only statements. The
// candidates come from the writer's dedup (src/ingest/event-dedup.ts): the event log has no index on dedup_key.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import { packRaw } from '../../db/raw-codec.ts';
import type { StoredEventInput } from '../stored-event.ts';
import { storedBrowser, storedDeviceType, storedOs, storedSource, storedType } from './stored-codes.ts';

const statements = preparedOnce((db) => ({
  same: db.prepare<[seq: number, site_id: string, id: string], number>('SELECT 1 FROM events WHERE seq = ? AND site_id = ? AND id = ?').pluck(),
  keysAfter: db.prepare<[number], [dedupKey: number, seq: number]>('SELECT dedup_key, seq FROM events WHERE seq > ? ORDER BY seq').raw(true),
  // id, anon_id and query are virtual (read from raw); the row is read back and an override is stored only where
  // that reading differs from the canonical value (a repeated key, a URL the collector normalised). Positional
  // parameters and a row as an array: on the acknowledging path, binding 22 named values from an object and
  // building a result object cost about a tenth of the insert.
  insert: db
    .prepare<InsertValues, [seq: number, id: string | null, anonId: string | null, query: string | null]>(
      `INSERT INTO events (site_id, dedup_key, type_stored, ts, received_after_ts, user_id, path, source_stored, utm_source, utm_medium,
         utm_campaign, browser_stored, os_stored, device_type_stored, country, region, city, is_bot, is_internal, revenue_minor, revenue_currency, raw_packed)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       RETURNING seq, id, anon_id, query`,
    )
    .raw(true),
  // The same insert when the collector checked that raw reads as the canonical values (rawReadsCanonical).
  insertPlain: db.prepare<InsertValues>(
    `INSERT INTO events (site_id, dedup_key, type_stored, ts, received_after_ts, user_id, path, source_stored, utm_source, utm_medium,
       utm_campaign, browser_stored, os_stored, device_type_stored, country, region, city, is_bot, is_internal, revenue_minor, revenue_currency, raw_packed)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  override: db.prepare<{ seq: number; id: string | null; anon_id: string | null; query: string | null }>(
    'UPDATE events SET id_override = :id, anon_id_override = :anon_id, query_override = :query WHERE seq = :seq',
  ),
  deleteOfSite: db.prepare<[string]>('DELETE FROM events WHERE site_id = ?'),
  deleteBySeq: db.prepare<[number]>('DELETE FROM events WHERE seq = ?'),
  deleteBefore: db.prepare<[string, number]>('DELETE FROM events WHERE site_id = ? AND ts < ?'),
}));

/** Whether the stored event `seq` is this one (site_id and id): a dedup candidate confirmed, or not. */
export function isStoredEvent(db: Db, seq: number, event: Pick<StoredEventInput, 'site_id' | 'id'>): boolean {
  return statements(db).same.get(seq, event.site_id, event.id) !== undefined;
}

/** The dedup key and seq of every stored event after `seq`, in ingest order. */
export function eventKeysAfter(db: Db, seq: number): IterableIterator<[dedupKey: number, seq: number]> {
  return statements(db).keysAfter.iterate(seq);
}

type InsertValues = [
  site_id: string, dedup_key: number, type_stored: string | number, ts: number, received_after_ts: number, user_id: string | null,
  path: string | null, source_stored: string | number, utm_source: string | null, utm_medium: string | null, utm_campaign: string | null,
  browser_stored: string | number | null, os_stored: string | number | null, device_type_stored: string | number | null, country: string | null, region: string | null,
  city: string | null, is_bot: 0 | 1, is_internal: 0 | 1, revenue_minor: number | null, revenue_currency: string | null,
  raw_packed: Buffer,
];

/** The row as stored: frequent values coded (stored-codes.ts), received_at as its distance from ts, raw packed (src/db/raw-codec.ts). */
function storedValues(event: StoredEventInput, receivedAt: number): InsertValues {
  return [
    event.site_id, event.dedup_key, storedType(event.type), event.ts, receivedAt - event.ts, event.user_id, event.path,
    storedSource(event.source, event.utm_source), event.utm_source, event.utm_medium, event.utm_campaign,
    storedBrowser(event.browser), storedOs(event.os), storedDeviceType(event.device_type), event.country, event.region,
    event.city, event.is_bot, event.is_internal, event.revenue_minor, event.revenue_currency,
    packRaw(event.site_id, event.ts, event.raw),
  ];
}

/** Returns the new row's seq. */
export function insertEvent(db: Db, event: StoredEventInput, receivedAt: number): number {
  const { insert, insertPlain, override } = statements(db);
  if (event.raw_reads_canonical === true) {
    // Reading the virtual columns back parses raw several times: about a third of the insert.
    return Number(insertPlain.run(...storedValues(event, receivedAt)).lastInsertRowid);
  }
  const [seq, id, anonId, query] = insert.get(...storedValues(event, receivedAt))!;
  if (id !== event.id || anonId !== event.anon_id || query !== event.query) {
    override.run({
      seq,
      id: id === event.id ? null : event.id,
      anon_id: anonId === event.anon_id ? null : event.anon_id,
      // '' stands for "no query" (a canonical query is never empty: the collector stores null then).
      query: query === event.query ? null : (event.query ?? ''),
    });
  }
  return seq;
}

export function deleteEventsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}

/** Deletes events by seq (a GDPR deletion, the retention purge); returns how many existed. */
export function deleteEventsBySeq(db: Db, seqs: Iterable<number>): number {
  const { deleteBySeq } = statements(db);
  let deleted = 0;
  for (const seq of seqs) deleted += deleteBySeq.run(seq).changes;
  return deleted;
}

/** Deletes the site's events with ts < beforeMs (a rebuild that keeps purged days' rollups: src/projector/reconcile.ts). */
export function deleteEventsBefore(db: Db, siteId: string, beforeMs: number): void {
  statements(db).deleteBefore.run(siteId, beforeMs);
}
