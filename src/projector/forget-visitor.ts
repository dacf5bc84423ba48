// Takes one visitor (an anon_id of a site) out of everything the projector derived: its visits, identity
// bindings, visitor index rows, visitor number, and its contributions to every rollup. A GDPR deletion calls it inside its write
// transaction, before deleting the visitor's events (it reads them to know what to subtract); holding
// sightline.db's write lock, it cannot interleave with a projector batch, so the events it subtracts are exactly
// those the projector had counted (seq <= its position) and the ones it had not are deleted before it reaches them.
import type { Db } from '../db/open.ts';
import { deleteIdentitiesOfAnon } from './queries/identity-rows.ts';
import { readProjectorPosition } from './queries/projector-state.ts';
import { deleteVisitsOfVisitor, listVisitsOfVisitor } from './queries/visitor-visits.ts';
import { deleteVisitorEventsOfVisitor } from './queries/visitor-events.ts';
import { deleteVisitorNumber, findVisitorNumber } from './queries/visitor-number-rows.ts';
import { applyRollups } from './rollup/apply-rollups.ts';
import { RollupDelta } from './rollup/rollup-delta.ts';
import { countWholeVisit } from './rollup/visit-contributions.ts';

/**
 * @example inWriteTransaction(db, () => { forgetVisitor(db, 'blog', 'anon-1'); deleteEventsOfVisitor(db, 'blog', 'anon-1'); }, { eventLog: true });
 */
export function forgetVisitor(db: Db, siteId: string, anonId: string): void {
  const vid = findVisitorNumber(db, siteId, anonId);
  if (vid !== undefined) {
    const delta = new RollupDelta();
    const position = readProjectorPosition(db);
    for (const visit of listVisitsOfVisitor(db, siteId, anonId)) countWholeVisit(db, delta, visit, vid, -1, position);
    applyRollups(db, delta);
    deleteVisitorEventsOfVisitor(db, vid, siteId);
    deleteVisitorNumber(db, siteId, anonId);
  }
  deleteVisitsOfVisitor(db, siteId, anonId);
  deleteIdentitiesOfAnon(db, siteId, anonId);
}
