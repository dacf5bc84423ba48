// A report reads everything it needs in one read transaction: one consistent snapshot of the event log and of what
// the projector derived, while the writer and the projector keep committing (WAL readers see each file as of their
// first read of it). Its freshness is read in the same snapshot.
import type { Db } from '../db/open.ts';
import { newestReceivedAt } from '../event-store/queries/newest-events.ts';
import { readProjectorPosition } from '../projector/queries/projector-state.ts';

export function inSnapshot<T>(db: Db, work: () => T): T {
  return db.transaction(work).deferred();
}

export interface Freshness {
  /** The projector's position: derived data counts every event with seq <= it. */
  projectedSeq: number;
  /** Commit time of the scope's newest stored event (epoch ms), or null. */
  watermarkMs: number | null;
  /** Commit time of the scope's newest event the projector has counted (epoch ms), or null. */
  projectedThroughMs: number | null;
}

/** Call inside the snapshot: the position first, so everything derived read after it is at least that fresh. */
export function readFreshness(db: Db, siteIds: readonly string[]): Freshness {
  const projectedSeq = readProjectorPosition(db);
  return { projectedSeq, watermarkMs: newestReceivedAt(db, siteIds), projectedThroughMs: newestReceivedAt(db, siteIds, projectedSeq) };
}
