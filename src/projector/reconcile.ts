// At start: the projector's position must not be past the event log's end. It can be after a power failure with
// SYNCHRONOUS=normal (the log loses its last commits while sightline.db keeps a position that had counted them) or a
// restore that paired an older event log with a newer sightline.db. New events would then take seqs the projector has
// already passed and never be counted, and the rollups would count events that no longer exist: everything derived is
// dropped and projected again from the log. Except what the log can no longer give: the rollups of days whose events
// the retention purge deleted stay (with the value and visitor numbers they refer to and the identity bindings), and
// the month holding a site's first kept day is rebuilt from its kept days; events of purged days still in the log
// (late arrivals the purge had not reached) are deleted, since their days' rollups are final.
import { consola } from 'consola';
import type { Db } from '../db/open.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { forgetEventKeysAfter } from '../event-store/queries/event-keys.ts';
import { highestSeqIssued } from '../event-store/queries/newest-events.ts';
import { deleteEventsBefore } from '../event-store/queries/event-rows.ts';
import { Grain, dayMs, firstDayOfMonth, monthOfDay } from '../vocabulary/periods.ts';
import { addMonthRevenueOfDays, deleteAllProjected, deleteProjectedExceptPurged, type KeptPeriods, listDayShards } from './queries/all-projected.ts';
import { readProjectorPosition, saveProjectorPosition } from './queries/projector-state.ts';
import { listPurgedSites } from './queries/retention-rows.ts';
import { emptyCounters, field, fieldCount, forEachShardEntry } from '../rollup-format/counter-shard.ts';
import { ShardChanges } from './rollup/shard-changes.ts';

/** The month of a purged site's first kept day, as the sum of its purged days (visitors are never stored at months). */
function rebuildBoundaryMonth(db: Db, site: KeptPeriods): void {
  const from = firstDayOfMonth(site.month);
  if (from >= site.day) return;
  const changes = new ShardChanges();
  const scratch = emptyCounters();
  for (const row of listDayShards(db, site.site_id, from, site.day)) {
    const at = { site_id: site.site_id, dim: row.dim, grain: Grain.month, period: site.month, internal: row.internal };
    forEachShardEntry(row.entries, scratch, (valueId) => {
      const counters = changes.counters(at, valueId);
      for (let index = 0; index < fieldCount; index++) if (index !== field.visitors) counters[index]! += scratch[index]!;
    });
  }
  changes.write(db);
  addMonthRevenueOfDays(db, site.site_id, site.month, from, site.day);
}

/** Returns whether the projection was dropped to be derived again. */
export function reconcileProjection(db: Db, now: number): boolean {
  // The common case reads and locks nothing else: the rebuild below locks the event log too (it may delete from it).
  if (readProjectorPosition(db) <= highestSeqIssued(db)) return false;
  return inWriteTransaction(
    db,
    () => {
      const position = readProjectorPosition(db);
      const issued = highestSeqIssued(db);
      // The dedup index likewise: keys of events the log lost would make their seqs, issued again, look stored (the
      // projector keeps keys only up to its position, so there are none past `issued` unless the position is too).
      forgetEventKeysAfter(db, issued);
      if (position <= issued) return false;
      consola.warn(`the projector had counted events up to seq ${position} but the event log ends at ${issued}: deriving visits and reports again from the event log`);
      const purged = listPurgedSites(db).map((site): KeptPeriods => ({ site_id: site.site_id, day: site.purged_before, month: monthOfDay(site.purged_before) }));
      if (purged.length === 0) deleteAllProjected(db);
      else {
        consola.warn(`keeping the rollups of the days the retention purge emptied (sites ${purged.map((site) => site.site_id).join(', ')})`);
        deleteProjectedExceptPurged(db, purged);
        for (const site of purged) {
          rebuildBoundaryMonth(db, site);
          deleteEventsBefore(db, site.site_id, site.day * dayMs);
        }
      }
      saveProjectorPosition(db, 0, now);
      return true;
    },
    { eventLog: true },
  );
}
