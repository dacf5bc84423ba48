// A report reads everything it needs in one read transaction: one consistent snapshot of the event log and of what
// the projector derived, while the writer and the projector keep committing (WAL readers see each file as of their
// first read of it). Its freshness is read in the same snapshot.
import type { Db } from '../../db/open.ts';
import { newestReceivedAt } from '../../event-store/queries/newest-events.ts';
import { readProjectorPosition } from '../../projector/queries/projector-state.ts';
import { purgedBeforeDay } from '../../projector/queries/retention-rows.ts';

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
  /** The latest first kept day of the retention purges of the sites (undefined if none ran): older raw events are gone. */
  rawEventsFromDay: number | undefined;
}

/** Call inside the snapshot: the position first, so everything derived read after it is at least that fresh. */
export function readFreshness(db: Db, siteIds: readonly string[]): Freshness {
  const projectedSeq = readProjectorPosition(db);
  return {
    projectedSeq,
    watermarkMs: newestReceivedAt(db, siteIds),
    projectedThroughMs: newestReceivedAt(db, siteIds, projectedSeq),
    rawEventsFromDay: rawEventsFromDayOf(db, siteIds),
  };
}

/** Days before it lost their raw events to a site's retention period (their rollups stay). */
function rawEventsFromDayOf(db: Db, siteIds: readonly string[]): number | undefined {
  let latest: number | undefined;
  for (const siteId of siteIds) {
    const day = purgedBeforeDay(db, siteId);
    if (day !== undefined && (latest === undefined || day > latest)) latest = day;
  }
  return latest;
}
