// Once per app start: the cursor secret exists, deleting a site removes its rollups, and events stored before
// the rollups existed are counted (backfill).
import { registerSiteDataRemover } from '../admin/site-data.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { deleteCounterShardsOfSite } from './queries/counter-shard-rows.ts';
import { deletePendingCountersOfSite } from './queries/pending-counter-rows.ts';
import { deletePendingVisitorsOfSite } from './queries/pending-visitor-rows.ts';
import { deleteRevenueOfSite } from './queries/revenue-rows.ts';
import { deleteSiteFreshness } from './queries/site-freshness-rows.ts';
import { listSitesWithEvents } from './queries/site-newest-event.ts';
import { deleteStateValue, insertStateValueIfMissing, readStateValue } from './queries/state-rows.ts';
import { deleteValuesOfSite } from './queries/value-rows.ts';
import { deleteVisitorNumbersOfSite } from './queries/visitor-number-rows.ts';
import { deleteVisitorSetsOfSite } from './queries/visitor-set-rows.ts';
import { rebuildSiteReports } from './rollup/rebuild-site.ts';

registerSiteDataRemover('report rollups', (db, siteId) => {
  deleteCounterShardsOfSite(db, siteId);
  deleteVisitorSetsOfSite(db, siteId);
  deletePendingCountersOfSite(db, siteId);
  deletePendingVisitorsOfSite(db, siteId);
  deleteRevenueOfSite(db, siteId);
  deleteValuesOfSite(db, siteId);
  deleteSiteFreshness(db, siteId);
  deleteVisitorNumbersOfSite(db, siteId);
});

export function prepareReports(context: AppContext): void {
  const db = context.db;
  // Created here, outside any report's read snapshot, so reading a cursor never has to write.
  insertStateValueIfMissing(db, 'cursor_secret', context.random.bytes(32));
  if (readStateValue(db, 'backfill_needed') === undefined) return;
  inWriteTransaction(db, () => {
    if (readStateValue(db, 'backfill_needed') === undefined) return;
    for (const siteId of listSitesWithEvents(db)) rebuildSiteReports(db, siteId);
    deleteStateValue(db, 'backfill_needed');
  });
}
