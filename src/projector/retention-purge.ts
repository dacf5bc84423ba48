// The retention purge of one site, one bounded batch at a time: counted events older than the site's period go with
// their visitor index rows and the visits that ended before the cutoff; the rollups of those days stay, so reports of
// purged days keep their numbers. Each batch is one transaction locking both files from its start (it deletes from
// the event log), so it never interleaves with a projector batch, and it is short (at most `maxEvents` events) so
// the ingest writer waits for it only briefly. Events the projector has not counted yet are left for a later pass.
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { toIso } from '../clock.ts';
import type { Db } from '../db/open.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { deleteDlqRowsReceivedBefore } from '../event-store/queries/dlq-rows.ts';
import { deleteEventsBySeq } from '../event-store/queries/event-rows.ts';
import { dayMs, dayOf } from '../vocabulary/periods.ts';
import { purgeVisitSequences } from './visit-sequences.ts';
import { deleteVisitorIndexRow, deleteVisitsEndedBefore, listExpiredEvents, savePurgedBefore } from './queries/retention-rows.ts';

export interface PurgeCounts {
  events: number;
  visits: number;
  dlq: number;
}

/**
 * The first day a site keeps: events whose UTC day is more than `retentionDays` days before today's go. With 30 on
 * 2026-03-31, 2026-03-01 is kept and 2026-02-28 purged.
 */
export function firstKeptDay(now: number, retentionDays: number): number {
  return dayOf(now) - retentionDays;
}

/** One batch of the site's purge; `done` when nothing expired is left (of what the projector has counted). */
export function purgeSiteBatch(db: Db, site: Pick<SiteRow, 'id' | 'retention_days'>, now: number, maxEvents: number): PurgeCounts & { done: boolean } {
  if (site.retention_days === null) return { events: 0, visits: 0, dlq: 0, done: true };
  const keptDay = firstKeptDay(now, site.retention_days);
  const beforeMs = keptDay * dayMs;
  return inWriteTransaction(
    db,
    () => {
      const expired = listExpiredEvents(db, site.id, beforeMs, maxEvents);
      const anonIds = new Set(expired.map((event) => event.anon_id));
      // Before anything goes: the visits whose page sequences change (src/projector/visit-sequences.ts).
      const sequences = purgeVisitSequences(db, site.id, anonIds, beforeMs);
      for (const event of expired) deleteVisitorIndexRow(db, site.id, event);
      let visits = 0;
      for (const anonId of anonIds) visits += deleteVisitsEndedBefore(db, site.id, anonId, beforeMs);
      const events = deleteEventsBySeq(db, expired.map((event) => event.seq));
      sequences.finish();
      // Quarantined events were never counted: they go by when they were received.
      const dlq = deleteDlqRowsReceivedBefore(db, site.id, toIso(beforeMs), maxEvents);
      // Recorded only once events went: from then on, a rebuild of everything derived must keep these days' rollups.
      if (events > 0) savePurgedBefore(db, site.id, keptDay, now);
      return { events, visits, dlq, done: expired.length < maxEvents && dlq < maxEvents };
    },
    { eventLog: true },
  );
}
