// What the HTTP thread (projection.ts) and the projector thread (src/projector-thread.ts) say to each other.
import type { ProjectorProgress } from './projector-loop.ts';

export interface ProjectorThreadData {
  databasePath: string;
  intervalMs: number;
  maxEventsPerBatch: number;
  /** Nice value of this thread: acknowledgements and reads go first when the cores are busy. */
  niceness: number;
  /** [0]: the highest committed seq, written by the HTTP thread after each group commit. */
  committedSeq: SharedArrayBuffer;
  /** Also checkpoint both files' WALs every second (the server): this thread is background work already. */
  checkpoints: boolean;
  nativeBinding?: string;
}

/** From the HTTP thread: a read waits, or stop. */
export type ProjectorCommand = { type: 'urgent' } | { type: 'close' };
/** To the HTTP thread. */
export type ProjectorReport =
  | ({ type: 'progress' } & ProjectorProgress)
  | { type: 'error'; message: string }
  | { type: 'ready' }
  /** The event log's WAL is still long after a checkpoint: its writer should finish it (src/db/checkpointer.ts). */
  | { type: 'event-log-backlog' };
