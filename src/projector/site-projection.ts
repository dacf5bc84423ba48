// Recomputes a site's rollups from its raw events and visits: the backfill of events stored before the rollups
// existed (schema version 3), and a repair tool. Runs inside the caller's write transaction.
import type { Db } from '../db/open.ts';
import { deleteCounterShardsOfSite } from './queries/counter-shard-rows.ts';
import { deletePendingCountersOfSite } from '../reports/queries/pending-counter-rows.ts';
import { deletePendingVisitorsOfSite } from '../reports/queries/pending-visitor-rows.ts';
import { deleteRevenueOfSite } from './queries/revenue-rows.ts';
import { deleteSiteFreshness, raiseSiteFreshness } from '../reports/queries/site-freshness-rows.ts';
import { deleteStagingLogOfSite } from '../reports/queries/staging-log-rows.ts';
import { findSiteNewestEvent } from '../event-store/queries/site-newest-event.ts';
import { deleteValuesOfSite } from './queries/value-rows.ts';
import { deleteVisitorSetsOfSite } from './queries/visitor-set-rows.ts';
import { listVisitsPage } from './queries/visitor-visits.ts';
import { flushRollups } from './rollup/apply-rollups.ts';
import { foldAllPendingRollups } from '../reports/rollup/fold-pending.ts';
import { RollupDelta } from './rollup/rollup-delta.ts';
import { countWholeVisit } from './rollup/visit-contributions.ts';
import { visitorNumberOf } from './rollup/visitor-number.ts';

const visitsPerFlush = 2000;

/** Everything the rollups keep of a site but its visitor numbers (a rebuild keeps those). */
export function deleteSiteRollups(db: Db, siteId: string): void {
  deleteCounterShardsOfSite(db, siteId);
  deleteVisitorSetsOfSite(db, siteId);
  deletePendingCountersOfSite(db, siteId);
  deletePendingVisitorsOfSite(db, siteId);
  deleteStagingLogOfSite(db, siteId);
  deleteRevenueOfSite(db, siteId);
  deleteValuesOfSite(db, siteId);
  deleteSiteFreshness(db, siteId);
}

export function rebuildSiteReports(db: Db, siteId: string): void {
  deleteSiteRollups(db, siteId);
  let afterId = 0;
  for (;;) {
    const visits = listVisitsPage(db, siteId, afterId, visitsPerFlush);
    if (visits.length === 0) break;
    const delta = new RollupDelta();
    for (const visit of visits) {
      const vid = visitorNumberOf(db, siteId, visit.anon_id);
      if (vid !== undefined) countWholeVisit(db, delta, visit, vid, 1);
    }
    flushRollups(db, delta);
    afterId = visits[visits.length - 1]!.id;
  }
  // A rebuild is not on the ingest path: fold what it staged now, so reports read compact shards at once.
  foldAllPendingRollups(db);
  const newest = findSiteNewestEvent(db, siteId);
  if (newest) raiseSiteFreshness(db, { site_id: siteId, ...newest });
}
