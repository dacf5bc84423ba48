// Takes one visitor (an anon_id of a site) out of every rollup. A GDPR deletion calls it inside its transaction,
// BEFORE deleting the visitor's events and visits (it reads them to know what to subtract).
import type { Db } from '../db/open.ts';
import { listVisitsOfVisitor } from './queries/visitor-visits.ts';
import { deleteVisitorNumber, findVisitorNumber } from './queries/visitor-number-rows.ts';
import { flushRollups } from './rollup/apply-rollups.ts';
import { RollupDelta } from './rollup/rollup-delta.ts';
import { moveAllStagingLog } from '../reports/rollup/staging-log.ts';
import { countWholeVisit } from './rollup/visit-contributions.ts';

/**
 * @example inWriteTransaction(db, () => { forgetVisitorInReports(db, 'blog', 'anon-1'); deleteTheirEvents(); });
 */
export function forgetVisitorInReports(db: Db, siteId: string, anonId: string): void {
  const vid = findVisitorNumber(db, siteId, anonId);
  if (vid === undefined) return;
  // The visitor's logged additions reach the staged tables first, where the removals below find them.
  moveAllStagingLog(db);
  const delta = new RollupDelta();
  for (const visit of listVisitsOfVisitor(db, siteId, anonId)) countWholeVisit(db, delta, visit, vid, -1);
  flushRollups(db, delta);
  deleteVisitorNumber(db, siteId, anonId);
}
