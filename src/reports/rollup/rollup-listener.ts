// Keeps the report rollups in the transaction that stores the events (STYLE rule 8): each event's changes are
// accumulated per request batch, kept when the batch's savepoint is released, and written once before COMMIT.
import type { Db } from '../../db/open.ts';
import { registerWriteListener } from '../../ingest/write-listeners.ts';
import { addStoredEvent, type VisitChange } from '../../projector/rollup/event-contributions.ts';
import { flushRollups } from '../../projector/rollup/apply-rollups.ts';
import { foldPendingRollups } from './fold-pending.ts';
import { RollupDelta } from '../../projector/rollup/rollup-delta.ts';
import { moveStagingLog } from './staging-log.ts';
import { visitorNumberOf } from '../../projector/rollup/visitor-number.ts';

interface WriterState {
  batch: RollupDelta;
  group: RollupDelta;
  /** The visit change of the event being stored (sessions are assigned just before the event listeners run). */
  change: VisitChange | undefined;
  loggedSinceMove: number;
  lastMoveAt: number;
  moving: boolean;
  stagedSinceFold: number;
  lastFoldAt: number;
  folding: boolean;
}

/**
 * The staging log is moved into the staged tables after this many entries were logged or this long has passed
 * since the last move, in slices of about this many entries (a slice is one transaction, so a waiting commit
 * waits for one slice at most). Moving many commits' rows at once writes each page of the staged tables once.
 */
const moveAfterEntries = 4_000;
const moveAfterMs = 250;
const moveEntriesPerSlice = 1_000;

/**
 * Folding waits until this many entries were staged or this long has passed since the last fold, so one fold
 * merges many commits' changes to the same shards and sets; it then runs in slices of this many rows, each about
 * under a millisecond at the median (npm run bench -- reports), until nothing is left.
 */
const foldAfterEntries = 20_000;
const foldAfterMs = 1_000;
const foldRowsPerSlice = 100;

const states = new WeakMap<Db, WriterState>();

function stateOf(db: Db): WriterState {
  let state = states.get(db);
  if (!state) {
    const now = performance.now();
    const fresh: WriterState = { batch: new RollupDelta(), group: new RollupDelta(), change: undefined, loggedSinceMove: 0, lastMoveAt: now, moving: false, stagedSinceFold: 0, lastFoldAt: now, folding: false };
    states.set(db, (state = fresh));
  }
  return state;
}

registerWriteListener({
  name: 'reports',
  onSessionsChanged(db, removed, added) {
    stateOf(db).change = { removed, added };
  },
  onEventStored(db, event) {
    const state = stateOf(db);
    const change = state.change;
    state.change = undefined;
    state.batch.seen(event.site_id, event.seq, event.received_at);
    if (event.is_bot) return;
    if (!change || change.added.anon_id !== event.anon_id || change.added.site_id !== event.site_id) {
      throw new Error('reports: an event was stored without its visit');
    }
    const vid = visitorNumberOf(db, event.site_id, event.anon_id);
    if (vid !== undefined) addStoredEvent(db, state.batch, event, change, vid);
  },
  onBatchEnd(db, stored) {
    const state = stateOf(db);
    if (stored && state.group.isEmpty) state.group = state.batch;
    else if (stored) state.group.absorb(state.batch);
    state.batch = new RollupDelta();
    state.change = undefined;
  },
  beforeCommit(db) {
    const state = stateOf(db);
    try {
      state.loggedSinceMove += flushRollups(db, state.group, 'log');
    } finally {
      state.group = new RollupDelta();
    }
  },
  onIdle(db, inTransaction) {
    const state = stateOf(db);
    const now = performance.now();
    // The log first: what it holds reaches the staged tables before they are folded. A quiet writer's timer finds
    // rows left by an earlier process too.
    if (state.moving || state.loggedSinceMove >= moveAfterEntries || now - state.lastMoveAt >= moveAfterMs) {
      const step = inTransaction(() => moveStagingLog(db, moveEntriesPerSlice));
      state.stagedSinceFold += step.entries;
      state.moving = step.more;
      if (!step.more) {
        state.loggedSinceMove = 0;
        state.lastMoveAt = now;
      }
      if (step.entries > 0 || step.more) return true;
    }
    if (!state.folding && state.stagedSinceFold < foldAfterEntries && now - state.lastFoldAt < foldAfterMs) return false;
    state.folding = inTransaction(() => foldPendingRollups(db, foldRowsPerSlice));
    if (!state.folding) {
      state.stagedSinceFold = 0;
      state.lastFoldAt = now;
    }
    return state.folding;
  },
});
