// WAL checkpoints of both files (sightline.db and the event log) run on a timer, off the ingest path: automatic
// checkpoints would otherwise run inside a commit and turn a 0.5 ms group commit into a 10 ms one. The server runs
// the timer on the projector thread (background priority, a connection to both files already); tests and apps
// without that thread run it here.
import { type Db, eventLogSchema } from './open.ts';

/** Where the periodic checkpoints run: on this thread, or on the projector thread (the server). */
export type CheckpointMode = 'here' | 'projector-thread';

export interface Checkpointer {
  stop(): Promise<void>;
}

/** How often the WALs are checkpointed. */
export const checkpointIntervalMs = 1_000;

/**
 * Frames in the event log's WAL (256 MiB of 4 KiB pages) from which its writer is asked to finish a checkpoint. A
 * checkpoint on another thread never catches up with a writer committing hundreds of times a second: frames arrive
 * while it copies, so the WAL is never wholly copied back, never restarted, and grows without bound (2 GB a minute at
 * 2,000 events/s). The writer, between two of its commits, copies the frames that arrived since; its next commit
 * then starts the WAL over. That checkpoint holds the writer for 12-35 ms (its syncs), so it runs rarely: about every
 * 7 s at 2,000 events/s (docs/ingest.md, "Checkpoints").
 */
export const eventLogFinishFrames = 65_536;

/**
 * Frames the writer's finishing checkpoint may be left to copy. Its syncs cover whatever the event log's WAL holds
 * that no checkpoint synced yet: a second of commits at 2,000 events/s is megabytes, 12-35 ms of fsync while the
 * writer waits. So the projector thread copies (and syncs) first what arrived during its own checkpoint, again and
 * again while that shrinks, and tells the writer only when little is left.
 */
export const finishLeftoverFrames = 256;
const maxSettleRounds = 4;

/** What `PRAGMA wal_checkpoint` answers: [busy, frames in the WAL, frames copied back]. */
export interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

/** A PASSIVE checkpoint of one file of `db` (`schema`: 'main' or an attached name); null when it failed. */
export function checkpointPassive(db: Db, schema = 'main'): CheckpointRow | null {
  try {
    return (db.pragma(`${schema}.wal_checkpoint(PASSIVE)`) as CheckpointRow[])[0] ?? null;
  } catch {
    // busy or closing: the next tick tries again
    return null;
  }
}

export interface PeriodicCheckpoints {
  intervalMs?: number;
  /** Heard when the event log's WAL still holds `finishFrames` or more after a checkpoint: its writer should finish it. */
  onEventLogBacklog?: () => void;
  finishFrames?: number;
}

/** PASSIVE checkpoints of every file of `db` every `intervalMs`; returns the function that stops them. */
export function checkpointPeriodically(db: Db, options: PeriodicCheckpoints = {}): () => void {
  const finishFrames = options.finishFrames ?? eventLogFinishFrames;
  const timer = setInterval(() => {
    if (!db.open) return;
    checkpointPassive(db, 'main');
    const log = checkpointPassive(db, eventLogSchema);
    if (log && log.log >= finishFrames) {
      settleEventLogCheckpoint(db, log);
      options.onEventLogBacklog?.();
    }
  }, options.intervalMs ?? checkpointIntervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * PASSIVE checkpoints of the event log after `first`, while more than finishLeftoverFrames are left uncopied (frames
 * that arrived during the previous one), at most maxSettleRounds times: a reader's snapshot can hold frames back
 * however often it runs. Returns the rounds run.
 */
export function settleEventLogCheckpoint(db: Db, first: CheckpointRow): number {
  let last: CheckpointRow | null = first;
  let rounds = 0;
  while (last && last.log - last.checkpointed > finishLeftoverFrames && rounds < maxSettleRounds) {
    last = checkpointPassive(db, eventLogSchema);
    rounds++;
  }
  return rounds;
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
