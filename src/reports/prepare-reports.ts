// Once per app start: the cursor secret exists, deleting a site removes its rollups, and events stored before
// the rollups existed are counted (backfill).
import { registerSiteDataRemover } from '../admin/site-data.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { listSitesWithEvents } from '../event-store/queries/site-newest-event.ts';
import { deleteStateValue, insertStateValueIfMissing, readStateValue } from './queries/state-rows.ts';
import { deleteVisitorNumbersOfSite } from '../projector/queries/visitor-number-rows.ts';
import { deleteSiteRollups, rebuildSiteReports } from '../projector/site-projection.ts';

registerSiteDataRemover('report rollups', (db, siteId) => {
  deleteSiteRollups(db, siteId);
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
