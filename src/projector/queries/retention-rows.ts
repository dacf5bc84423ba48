// The retention purge's reads and deletes of derived rows, and how far it has gone per site (retention_state).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import { deleteVisitorOfEvent } from './visitor-events.ts';

export interface ExpiredEventRow {
  seq: number;
  ts: number;
  anon_id: string;
}

const statements = preparedOnce((db) => ({
  // Counted events only (seq up to the projector's position): an event is in its day's rollups before it goes.
  // INDEXED BY: the (site_id, ts) range, never the site's whole log.
  expired: db.prepare<{ site_id: string; before_ms: number; limit: number }, ExpiredEventRow>(
    `SELECT seq, ts, anon_id FROM events INDEXED BY events_by_site_ts
      WHERE site_id = :site_id AND ts < :before_ms AND seq <= (SELECT position FROM projector_state WHERE id = 1)
      LIMIT :limit`,
  ),
  deleteIndexRow: db.prepare<{ site_id: string; anon_id: string; ts: number; seq: number }>(
    `DELETE FROM visitor_events
      WHERE vid = (SELECT vid FROM report_visitors WHERE site_id = :site_id AND anon_id = :anon_id) AND ts = :ts AND seq = :seq`,
  ),
  deleteEndedVisits: db.prepare<{ site_id: string; anon_id: string; before_ms: number }>(
    'DELETE FROM sessions WHERE site_id = :site_id AND anon_id = :anon_id AND end_ts < :before_ms',
  ),
  purgedBefore: db.prepare<[string], number>('SELECT purged_before FROM retention_state WHERE site_id = ?').pluck(),
  allPurged: db.prepare<[], { site_id: string; purged_before: number }>('SELECT site_id, purged_before FROM retention_state'),
  savePurged: db.prepare<{ site_id: string; purged_before: number; purged_at: number }>(
    `INSERT INTO retention_state (site_id, purged_before, purged_at) VALUES (:site_id, :purged_before, :purged_at)
     ON CONFLICT (site_id) DO UPDATE SET purged_before = max(purged_before, excluded.purged_before), purged_at = excluded.purged_at`,
  ),
  deleteOfSite: db.prepare<[string]>('DELETE FROM retention_state WHERE site_id = ?'),
}));

/** At most `limit` counted events of the site with ts < before_ms. */
export function listExpiredEvents(db: Db, siteId: string, beforeMs: number, limit: number): ExpiredEventRow[] {
  return statements(db).expired.all({ site_id: siteId, before_ms: beforeMs, limit });
}

/** The visitor index row of one event (before the event goes). */
export function deleteVisitorIndexRow(db: Db, siteId: string, event: ExpiredEventRow): void {
  statements(db).deleteIndexRow.run({ site_id: siteId, anon_id: event.anon_id, ts: event.ts, seq: event.seq });
  deleteVisitorOfEvent(db, event.seq);
}

/** The visitor's visits that ended before `beforeMs`; returns how many. */
export function deleteVisitsEndedBefore(db: Db, siteId: string, anonId: string, beforeMs: number): number {
  return statements(db).deleteEndedVisits.run({ site_id: siteId, anon_id: anonId, before_ms: beforeMs }).changes;
}

/** The first day whose events the purge kept (events of earlier days are gone), or undefined if it never ran. */
export function purgedBeforeDay(db: Db, siteId: string): number | undefined {
  return statements(db).purgedBefore.get(siteId) as number | undefined;
}

export function listPurgedSites(db: Db): { site_id: string; purged_before: number }[] {
  return statements(db).allPurged.all();
}

export function savePurgedBefore(db: Db, siteId: string, day: number, now: number): void {
  statements(db).savePurged.run({ site_id: siteId, purged_before: day, purged_at: now });
}

export function deleteRetentionStateOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
