// Deleting a site removes everything the projector derived from its events, in the site deletion's transaction
// (the app's siteDataRemovers, src/app.ts, run deleteSiteProjection). A projector batch that read the site's events
// before cannot interleave: both hold sightline.db's write lock, and a batch skips events of a site that no longer
// exists.
import type { Db } from '../db/open.ts';
import { deleteCounterShardsOfSite } from './queries/counter-shard-rows.ts';
import { deleteIdentitiesOfSite } from './queries/identity-rows.ts';
import { deleteRevenueOfSite } from './queries/revenue-rows.ts';
import { deleteValuesOfSite } from './queries/value-rows.ts';
import { deleteVisitsOfSite } from './queries/visit-rows.ts';
import { deleteVisitorEventsOfSite } from './queries/visitor-events.ts';
import { deleteVisitorNumbersOfSite } from './queries/visitor-number-rows.ts';
import { deleteVisitorSetsOfSite } from './queries/visitor-set-rows.ts';
import { deleteSiteVisitSequences } from './visit-sequences.ts';

export function deleteSiteProjection(db: Db, siteId: string): void {
  deleteVisitsOfSite(db, siteId);
  deleteSiteVisitSequences(db, siteId);
  deleteIdentitiesOfSite(db, siteId);
  deleteCounterShardsOfSite(db, siteId);
  deleteVisitorSetsOfSite(db, siteId);
  deleteRevenueOfSite(db, siteId);
  deleteValuesOfSite(db, siteId);
  deleteVisitorEventsOfSite(db, siteId);
  deleteVisitorNumbersOfSite(db, siteId);
}
