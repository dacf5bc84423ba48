// The projector thread's entry: its own connection to sightline.db (the event log attached; it only reads it), the
// projector loop, and progress reported to the HTTP thread. Bundled to dist/projector-thread.mjs.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointPeriodically } from '../db/checkpointer.ts';
import { openDatabase } from '../db/open.ts';
import { ProjectorLoop, type ProjectorProgress } from './projector-loop.ts';

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

const data = workerData as ProjectorThreadData;
try {
  // setpriority with a thread id (Linux): this thread only.
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), data.niceness);
} catch {
  // not Linux, or not permitted: run at the process's priority
}
// 8 MiB of sightline.db pages: 16 held 10 MiB more RSS after a minute of ingest for no faster catch-up (docs/ingest.md).
const db = openDatabase(data.databasePath, { cacheMiB: 8, logCacheMiB: 4, nativeBinding: data.nativeBinding });
// Checkpoints run on a timer (src/db/checkpointer.ts), never inside a batch.
db.pragma('wal_autocheckpoint = 0');
const report = (message: ProjectorReport) => parentPort!.postMessage(message);
const stopCheckpoints = data.checkpoints ? checkpointPeriodically(db, { onEventLogBacklog: () => report({ type: 'event-log-backlog' }) }) : () => undefined;
const committed = new BigInt64Array(data.committedSeq);
const loop = new ProjectorLoop({
  db,
  now: Date.now,
  committedSeq: () => Number(Atomics.load(committed, 0)),
  intervalMs: data.intervalMs,
  maxEventsPerBatch: data.maxEventsPerBatch,
  onProgress: (progress) => report({ type: 'progress', ...progress }),
  onError: (error) => report({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
});

parentPort!.on('message', (command: ProjectorCommand) => {
  if (command.type === 'close') {
    stopCheckpoints();
    loop.stop();
    db.close();
    parentPort!.close();
    return;
  }
  loop.wake();
});
report({ type: 'ready' });
// Events stored before this start (or by a server that stopped before projecting them).
loop.wake();
