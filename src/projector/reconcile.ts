// At start: the projector's position must not be past the event log's end. It can be after a power failure with
// SYNCHRONOUS=normal (the log loses its last commits while sightline.db keeps a position that had counted them) or a
// restore that paired an older event log with a newer sightline.db. New events would then take seqs the projector has
// already passed and never be counted, and the rollups would count events that no longer exist: everything derived is
// dropped and projected again from the log.
import { consola } from 'consola';
import type { Db } from '../db/open.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { forgetEventKeysAfter } from '../event-store/queries/event-keys.ts';
import { highestSeqIssued } from '../event-store/queries/newest-events.ts';
import { deleteAllProjected } from './queries/all-projected.ts';
import { readProjectorPosition, saveProjectorPosition } from './queries/projector-state.ts';

/** Returns whether the projection was dropped to be derived again. */
export function reconcileProjection(db: Db, now: number): boolean {
  return inWriteTransaction(db, () => {
    const position = readProjectorPosition(db);
    const issued = highestSeqIssued(db);
    // The dedup index likewise: keys of events the log lost would make their seqs, issued again, look stored.
    forgetEventKeysAfter(db, issued);
    if (position <= issued) return false;
    consola.warn(`the projector had counted events up to seq ${position} but the event log ends at ${issued}: deriving visits and reports again from the event log`);
    deleteAllProjected(db);
    saveProjectorPosition(db, 0, now);
    return true;
  });
}
