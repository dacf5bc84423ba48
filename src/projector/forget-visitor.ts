// Takes one visitor (an anon_id of a site) out of everything the projector derived: its visits, identity
// bindings, visitor index rows, visitor number, its contributions to every rollup, and the text of the dimension
// values only it had (a path with its query, a campaign). A GDPR deletion calls it inside its write
// transaction, before deleting the visitor's events (it reads them to know what to subtract); holding
// sightline.db's write lock, it cannot interleave with a projector batch, so the events it subtracts are exactly
// those the projector had counted (seq <= its position) and the ones it had not are deleted before it reaches them.
// Days the retention purge emptied keep their counts: the visitor's events there are gone, so its share of those
// days' rollups can no longer be known (they hold numbers, never its anon_id).
import type { Db } from '../db/open.ts';
import { deleteIdentitiesOfAnon } from './queries/identity-rows.ts';
import { readProjectorPosition } from './queries/projector-state.ts';
import { findValueId } from './queries/value-rows.ts';
import { forgetValueText, hasRevenue, listShardsOfValues } from './queries/value-references.ts';
import { deleteVisitsOfVisitor, listVisitsOfVisitor } from './queries/visitor-visits.ts';
import { deleteVisitorEventsOfVisitor } from './queries/visitor-events.ts';
import { deleteVisitorNumber, findVisitorNumber } from './queries/visitor-number-rows.ts';
import { applyRollups } from './rollup/apply-rollups.ts';
import { emptyCounters, forEachShardEntry, shardOf } from '../rollup-format/counter-shard.ts';
import { RollupDelta } from './rollup/rollup-delta.ts';
import { countWholeVisit } from './rollup/visit-contributions.ts';
import { forgetVisitSequences } from './visit-sequences.ts';

/**
 * @example inWriteTransaction(db, () => { forgetVisitor(db, 'blog', 'anon-1'); deleteEventsOfVisitor(db, 'blog', 'anon-1'); }, { eventLog: true });
 */
export function forgetVisitor(db: Db, siteId: string, anonId: string): void {
  const vid = findVisitorNumber(db, siteId, anonId);
  if (vid !== undefined) {
    const delta = new RollupDelta();
    const position = readProjectorPosition(db);
    const visits = listVisitsOfVisitor(db, siteId, anonId);
    for (const visit of visits) countWholeVisit(db, delta, visit, vid, -1, position);
    forgetVisitSequences(db, vid, visits);
    applyRollups(db, delta);
    forgetUncountedValues(db, siteId, delta);
    deleteVisitorEventsOfVisitor(db, vid, siteId);
    deleteVisitorNumber(db, siteId, anonId);
  }
  deleteVisitsOfVisitor(db, siteId, anonId);
  deleteIdentitiesOfAnon(db, siteId, anonId);
}

/** The values the visitor's share touched that no counter or revenue row of the site counts any more. */
function forgetUncountedValues(db: Db, siteId: string, delta: RollupDelta): void {
  const candidates = new Map<string, { dim: number; shard: number; ids: Set<number> }>();
  for (const { key } of delta.entries()) {
    const valueId = findValueId(db, siteId, key.dim, key.value);
    if (valueId === undefined) continue;
    const text = `${key.dim}:${shardOf(valueId)}`;
    let group = candidates.get(text);
    if (!group) candidates.set(text, (group = { dim: key.dim, shard: shardOf(valueId), ids: new Set() }));
    group.ids.add(valueId);
  }
  const scratch = emptyCounters();
  for (const { dim, shard, ids } of candidates.values()) {
    const unused = new Set(ids);
    for (const blob of listShardsOfValues(db, siteId, dim, shard)) {
      forEachShardEntry(blob, scratch, (valueId) => unused.delete(valueId));
      if (unused.size === 0) break;
    }
    for (const valueId of unused) if (!hasRevenue(db, siteId, dim, valueId)) forgetValueText(db, siteId, dim, valueId);
  }
}
