// The writer's deferred upkeep: after a group commit (and on a timer, for quiet periods), the write listeners'
// onIdle slices run one transaction at a time on setImmediate, so a group commit that arrives meanwhile (a message
// to the writer thread, or the next inline commit) goes first and waits for at most one slice.
import type { Db } from '../db/open.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { writeListeners } from './write-listeners.ts';

/** How often a quiet writer looks for upkeep. */
export const idleCheckMs = 1_000;

const scheduled = new WeakSet<Db>();

/** One slice of every listener's upkeep; true when some listener has more. */
export function runIdleSlice(db: Db): boolean {
  let more = false;
  const inTransaction = <T>(work: () => T): T => inWriteTransaction(db, work);
  for (const listener of writeListeners()) if (listener.onIdle?.(db, inTransaction)) more = true;
  return more;
}

/** Runs idle slices until none has more, yielding to the event loop between slices. */
export function scheduleIdleWork(db: Db): void {
  if (scheduled.has(db)) return;
  scheduled.add(db);
  setImmediate(function slice() {
    let more = false;
    try {
      more = db.open && runIdleSlice(db);
    } catch {
      // Busy or closing: the next group commit schedules the upkeep again.
      more = false;
    }
    if (more) setImmediate(slice);
    else scheduled.delete(db);
  });
}

/** Looks for upkeep every idleCheckMs while the writer is open; returns the stop function. */
export function checkIdleWorkPeriodically(db: Db): () => void {
  const timer = setInterval(() => scheduleIdleWork(db), idleCheckMs);
  timer.unref();
  return () => clearInterval(timer);
}
