// The repair of schema version 19 (CONTRACT section 10: a path's visitors are the people with a pageview of it).
// Before it, any event on a path put its visitor in the path's and the page's daily visitor set, so pages counted the
// visitors of custom events (issue 24: /signup showed 736 visitors and 583 views). Run once at the first start after
// the upgrade, before the projector: for each site and day, the visitors whose events on a path (or page) that day
// were all custom events leave its set, and the day's `visitors` counter drops by as many (updateDaySet). It reads
// the projected events (up to the projector's position; later ones are projected by the fixed code) and only ever
// takes out members no pageview supports, so a run cut short (a crash) is simply run again at the next start. Days
// the retention purge emptied keep their sets: their events, which alone could tell, are gone.
import type { Db } from '../db/open.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { Dim, pageKeyOf } from '../vocabulary/dimensions.ts';
import { Grain, dayMs, dayOf } from '../vocabulary/periods.ts';
import { eventTimeSpan, listPathEvents, listSitesWithPaths } from './queries/path-events.ts';
import { finishRepair, isRepairPending } from './queries/projector-repairs.ts';
import { readProjectorPosition } from './queries/projector-state.ts';
import { listPurgedSites } from './queries/retention-rows.ts';
import { findValueId } from './queries/value-rows.ts';
import { ShardChanges, updateDaySet } from './rollup/shard-changes.ts';

export const pathVisitorsRepair = 'path_visitors';

/** Days repaired per transaction: short write locks, few commits. */
const daysPerTransaction = 7;

interface Suspects {
  dim: Dim;
  internal: 0 | 1;
  value: string;
  vids: Set<number>;
}

/** Takes out of one day's path and page sets the visitors with only custom events on them; returns how many left. */
function repairDay(db: Db, siteId: string, day: number, position: number, changes: ShardChanges): number {
  const viewed = new Set<string>();
  const suspects = new Map<string, Suspects>();
  for (const event of listPathEvents(db, { site_id: siteId, start_ms: day * dayMs, end_ms: (day + 1) * dayMs, max_seq: position })) {
    for (const [dim, value] of [[Dim.path, event.path], [Dim.page, pageKeyOf(event.path, event.query)!]] as const) {
      const key = `${dim}\u0000${event.is_internal}\u0000${value}`;
      if (event.type === 'pageview') {
        viewed.add(`${key}\u0000${event.vid}`);
        continue;
      }
      let found = suspects.get(key);
      if (!found) suspects.set(key, (found = { dim, internal: event.is_internal, value, vids: new Set() }));
      found.vids.add(event.vid);
    }
  }
  let removed = 0;
  for (const [key, { dim, internal, value, vids }] of suspects) {
    const leaving = [...vids].filter((vid) => !viewed.has(`${key}\u0000${vid}`));
    if (leaving.length === 0) continue;
    const valueId = findValueId(db, siteId, dim, value);
    if (valueId === undefined) continue;
    // Members only: a visitor a GDPR deletion already took out is not in the set.
    removed -= updateDaySet(db, { site_id: siteId, dim, grain: Grain.day, period: day, internal }, valueId, [], leaving, changes);
  }
  return removed;
}

/**
 * Runs the repair when schema 19 left it pending; returns whether it ran.
 * @example repairPathVisitors(db); // at start, after reconcileProjection and before the projector
 */
export function repairPathVisitors(db: Db): boolean {
  if (!isRepairPending(db, pathVisitorsRepair)) return false;
  const started = performance.now();
  const position = readProjectorPosition(db);
  const purgedBefore = new Map(listPurgedSites(db).map((site) => [site.site_id, site.purged_before]));
  let removed = 0;
  // Position 0: nothing projected (or everything dropped to be projected again, by the fixed code).
  const sites = position > 0 ? listSitesWithPaths(db) : [];
  // On stderr, as the upgrade's backup lines (src/db/upgrade-backup.ts): stdout may be --json.
  if (sites.length > 0) process.stderr.write(`Schema 19: taking the visitors of custom events out of the path and page visitor sets of ${sites.length} site(s)\n`);
  for (const siteId of sites) {
    const span = eventTimeSpan(db, siteId);
    if (!span) continue;
    const fromDay = Math.max(dayOf(span.first), purgedBefore.get(siteId) ?? Number.NEGATIVE_INFINITY);
    const toDay = dayOf(span.last);
    for (let start = fromDay; start <= toDay; start += daysPerTransaction) {
      removed += inWriteTransaction(db, () => {
        const changes = new ShardChanges();
        let count = 0;
        for (let day = start; day < start + daysPerTransaction && day <= toDay; day++) count += repairDay(db, siteId, day, position, changes);
        changes.write(db);
        return count;
      });
    }
  }
  inWriteTransaction(db, () => finishRepair(db, pathVisitorsRepair));
  if (sites.length > 0) process.stderr.write(`Schema 19: done, ${removed} visitor(s) taken out of path and page day sets (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  return true;
}
