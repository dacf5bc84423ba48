// One projector batch: the stored events after the saved position, in ingest order, become visits, identity
// bindings, visitor numbers and rollup changes, aggregated in memory and written with the new position in one
// transaction on sightline.db. A crash anywhere in it rolls it all back, so the next batch starts from the same
// position: nothing counted twice, nothing missed. The event log is only read, so the ingest writer never waits.
import { findSite } from '../tenants/queries/find-site.ts';
import type { Db } from '../db/open.ts';
import { indexEventKeys } from '../event-store/queries/event-keys.ts';
import { listEventsAfter } from '../event-store/queries/events-after.ts';
import { highestSeqIssued } from '../event-store/queries/newest-events.ts';
import type { LoggedEvent } from '../event-store/stored-event.ts';
import { bindIdentity } from './queries/identity-rows.ts';
import { VisitorIndexRows } from './queries/visitor-events.ts';
import { readProjectorPosition, saveProjectorPosition, touchProjectorState } from './queries/projector-state.ts';
import { applyRollups } from './rollup/apply-rollups.ts';
import { addProjectedEvent, batchPageLookup } from './rollup/event-contributions.ts';
import { RollupDelta } from './rollup/rollup-delta.ts';
import { visitorNumberOf } from './rollup/visitor-number.ts';
import type { VisitRow } from './queries/visit-rows.ts';
import { BatchVisits, type ChangedVisit } from './visits.ts';

/**
 * What a batch did to visits, as it left them in memory and stored them: a subscriber deriving something per visit
 * needs neither the visits nor the visitor numbers read again.
 */
export interface BatchVisitChanges {
  /** Every visit holding one of the batch's events (grown, merged or new), as stored now. */
  changed: readonly ChangedVisit[];
  /** The stored visits a merge removed (each lies inside the span of a changed visit). */
  removed: readonly VisitRow[];
}

/**
 * Hears what a batch projected (its events, bots and deleted sites' included, and the visits it changed), inside the
 * batch's transaction and before its position is saved: what it writes commits with the position, so each event
 * reaches it exactly once. A throw rolls the batch back. The app composes them (src/batch-subscribers.ts).
 */
export type BatchSubscriber = (db: Db, events: readonly LoggedEvent[], now: number, visits: BatchVisitChanges) => void;

export interface BatchOptions {
  /** Events per batch at most: one transaction, holding sightline.db's write lock (never the event log's). */
  maxEvents: number;
  now: number;
  subscribers?: readonly BatchSubscriber[];
  /**
   * Called inside the transaction after each event is projected; a throw rolls the whole batch back, as a crash
   * would (the differential test stops the projector mid-batch with it).
   */
  afterEvent?: (projected: number) => void;
}

export interface BatchResult {
  /** Events read (bots and events of deleted sites included: the position passes them too). */
  events: number;
  /** The position after the batch. */
  position: number;
  /** Commit time of the batch's oldest event (epoch ms; null for an empty batch): how long it waited to be counted. */
  oldestReceivedAt: number | null;
}

/**
 * @example const { events, position } = projectBatch(db, { maxEvents: 5000, now: Date.now() });
 */
export function projectBatch(db: Db, options: BatchOptions): BatchResult {
  return db
    .transaction((): BatchResult => {
      // A write first: the batch holds sightline.db's write lock from its start, so no other writer can commit
      // between its reads and its writes (a read first could not be upgraded to a write after such a commit).
      touchProjectorState(db, options.now);
      const position = readProjectorPosition(db);
      const events = listEventsAfter(db, position, options.maxEvents);
      // Read to the log's end: the position passes the seqs of deleted events too (in the same snapshot every seq
      // issued is committed), so a read waiting for the newest committed seq is not kept waiting by a deletion.
      const end = events.length < options.maxEvents ? highestSeqIssued(db) : 0;
      if (events.length === 0) {
        if (end > position) saveProjectorPosition(db, end, options.now);
        indexEventKeys(db, Math.max(position, end), true);
        return { events: 0, position: Math.max(position, end), oldestReceivedAt: null };
      }
      const delta = new RollupDelta();
      const siteExists = new Map<string, boolean>();
      for (const event of events) {
        if (!siteExists.has(event.site_id)) siteExists.set(event.site_id, findSite(db, event.site_id) !== undefined);
      }
      // A deleted site's events are unreachable by any read: nothing is derived from them. Bots get visitor numbers
      // and index rows but no visits.
      const visits = BatchVisits.load(
        db,
        events.filter((event) => !event.is_bot && siteExists.get(event.site_id)),
      );
      const visitorNumbers = new Map<string, number | undefined>();
      const pageOf = batchPageLookup(db, events);
      const index = new VisitorIndexRows();
      const writeIndex = () => index.flush(db);
      events.forEach((event, position) => {
        if (siteExists.get(event.site_id)) {
          if (event.user_id !== null) bindIdentity(db, { site_id: event.site_id, anon_id: event.anon_id, user_id: event.user_id, ts: event.ts });
          // Every visitor gets a number, bots too: the visitor index (a timeline's read) is keyed by it.
          const visitorKey = `${event.site_id}\u0000${event.anon_id}`;
          if (!visitorNumbers.has(visitorKey)) visitorNumbers.set(visitorKey, visitorNumberOf(db, event.site_id, event.anon_id));
          const vid = visitorNumbers.get(visitorKey);
          if (vid !== undefined) {
            index.add(vid, event);
            if (!event.is_bot) addProjectedEvent(db, delta, event, visits.assign(event), vid, pageOf, writeIndex);
          }
        }
        options.afterEvent?.(position + 1);
      });
      // Before anything else reads the index: the leavers' checks, the subscribers.
      writeIndex();
      // Before the rollups: they check leavers against the visits as the batch left them.
      visits.write(db);
      applyRollups(db, delta);
      let changed: readonly ChangedVisit[] | undefined;
      const changes: BatchVisitChanges = {
        // Listed when a subscriber first asks. A changed visit holds one of the batch's events, whose visitor got its
        // number above.
        get changed() {
          return (changed ??= visits.changed((visit) => visitorNumbers.get(`${visit.site_id}\u0000${visit.anon_id}`)!));
        },
        removed: visits.removed(),
      };
      for (const subscriber of options.subscribers ?? []) subscriber(db, events, options.now, changes);
      const reached = Math.max(events[events.length - 1]!.seq, end);
      saveProjectorPosition(db, reached, options.now);
      // The dedup index of what the batch passed (in chunks while a backlog lasts): the writer's in-memory tail no
      // longer needs to hold it.
      indexEventKeys(db, reached, events.length < options.maxEvents);
      // Seqs follow commits, so the first event read is the one committed first.
      return { events: events.length, position: reached, oldestReceivedAt: events[0]!.received_at };
    })
    .deferred();
}
