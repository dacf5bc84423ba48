// Keeps the report rollups in the transaction that stores the events (STYLE rule 8): each event's changes are
// accumulated per request batch, kept when the batch's savepoint is released, and written once before COMMIT.
import type { Db } from '../../db/open.ts';
import { registerWriteListener } from '../../ingest/write-listeners.ts';
import { addStoredEvent, type VisitChange } from './event-contributions.ts';
import { flushRollups } from './flush-rollups.ts';
import { RollupDelta } from './rollup-delta.ts';
import { visitorNumberOf } from './visitor-number.ts';

interface WriterState {
  batch: RollupDelta;
  group: RollupDelta;
  /** The visit change of the event being stored (sessions are assigned just before the event listeners run). */
  change: VisitChange | undefined;
}

const states = new WeakMap<Db, WriterState>();

function stateOf(db: Db): WriterState {
  let state = states.get(db);
  if (!state) states.set(db, (state = { batch: new RollupDelta(), group: new RollupDelta(), change: undefined }));
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
      flushRollups(db, state.group);
    } finally {
      state.group = new RollupDelta();
    }
  },
});
