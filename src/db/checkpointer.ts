// WAL checkpoints of both files (sightline.db and the event log) run on a timer, off the ingest path: automatic
// checkpoints would otherwise run inside a commit and turn a 0.5 ms group commit into a 10 ms one. The server runs
// the timer on the projector thread (background priority, a connection to both files already); tests and apps
// without that thread run it here.
import type { Db } from './open.ts';

/** Where the periodic checkpoints run: on this thread, or on the projector thread (the server). */
export type CheckpointMode = 'here' | 'projector-thread';

export interface Checkpointer {
  stop(): Promise<void>;
}

/** How often the WALs are checkpointed. */
export const checkpointIntervalMs = 1_000;

/**
 * PASSIVE checkpoints of every file of `db` every `intervalMs` (a checkpoint without a schema name covers every
 * attached database); returns the function that stops them.
 */
export function checkpointPeriodically(db: Db, intervalMs = checkpointIntervalMs): () => void {
  const timer = setInterval(() => {
    try {
      if (db.open) db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // busy: the next tick tries again
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Turns automatic checkpoints off on `db` and checkpoints periodically (here, or leaves it to the projector thread);
 * a stop ends with a TRUNCATE checkpoint, so the WALs do not outlive a clean stop.
 * @example const checkpointer = startCheckpointer(db, 'here'); ...; await checkpointer.stop();
 */
export function startCheckpointer(db: Db, mode: CheckpointMode): Checkpointer {
  db.pragma('wal_autocheckpoint = 0');
  const stopTimer = mode === 'here' ? checkpointPeriodically(db) : () => undefined;
  return {
    stop: async () => {
      stopTimer();
      try {
        db.pragma('wal_checkpoint(TRUNCATE)');
      } catch {
        // another process holds a read lock: the next start checkpoints
      }
    },
  };
}
