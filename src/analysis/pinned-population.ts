// Reads the population of an execution in one read transaction: the execution's watermark bounds the events, and
// the identity bindings are taken back to it (persons.ts), so every panel of one execution sees the same people.
import type { Db } from '../db/open.ts';
import { readProjectorPosition } from '../projector/queries/projector-state.ts';
import { inSnapshot, readFreshness, type Freshness } from '../read-model/sqlite/snapshot.ts';
import type { FunnelQuery } from './funnel-query.ts';
import { type Population, readPopulation } from '../read-model/sqlite/funnel-population.ts';

export interface PinnedPopulation extends Population {
  /** The projector's position when read (at least the watermark unless it is rebuilding). */
  projectedSeq: number;
}

/**
 * A new execution: the watermark is the projector's position now; its freshness is read in the same snapshot.
 * `maxEvents`: the cap of events read (default maxFunnelEvents).
 * @example const { freshness, people } = readNewExecution(db, ['blog'], query);
 */
export function readNewExecution(db: Db, siteIds: readonly string[], query: FunnelQuery, maxEvents?: number): PinnedPopulation & { freshness: Freshness } {
  return inSnapshot(db, () => {
    const freshness = readFreshness(db, siteIds);
    const watermarkSeq = freshness.projectedSeq;
    const population = readPopulation(db, { siteIds, query, watermarkSeq, projectedSeq: watermarkSeq, maxEvents });
    return { freshness, projectedSeq: watermarkSeq, ...population };
  });
}

/**
 * An existing execution's population (correlation, explanation): the events the funnel read, under the same cap
 * (`maxEvents`, default maxFunnelEvents); refusals point at /query.
 * @example const { people } = readPinnedPopulation(db, ['blog'], query, execution.watermarkSeq);
 */
export function readPinnedPopulation(db: Db, siteIds: readonly string[], query: FunnelQuery, watermarkSeq: number, maxEvents?: number): PinnedPopulation {
  return inSnapshot(db, () => {
    const projectedSeq = readProjectorPosition(db);
    const population = readPopulation(db, { siteIds, query, watermarkSeq, projectedSeq, withSeq: true, at: '/query', maxEvents });
    return { projectedSeq, ...population };
  });
}
