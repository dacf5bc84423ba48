// The projector thread's entry: its own connection to sightline.db (the event log attached; it only reads it), the
// projector loop with the batch subscribers the app composes (src/batch-subscribers.ts), and progress reported to the
// HTTP thread (src/projector/projection.ts). Bundled to dist/projector-thread.mjs.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { batchSubscribers } from './batch-subscribers.ts';
import { checkpointPeriodically } from './db/checkpointer.ts';
import { openDatabase } from './db/open.ts';
import { createHeapRelease } from './projector/heap-release.ts';
import type { ProjectorCommand, ProjectorReport, ProjectorThreadData } from './projector/projector-protocol.ts';
import { ProjectorLoop } from './projector/projector-loop.ts';

const data = workerData as ProjectorThreadData;
try {
  // setpriority with a thread id (Linux): this thread only.
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), data.niceness);
} catch {
  // not Linux, or not permitted: run at the process's priority
}
// 8 MiB of sightline.db pages: 16 held 10 MiB more RSS after a minute of ingest for no faster catch-up. The event
// log's 4 MiB stay: a batch reads its events twice (the batch, then event_keys), and with 1 MiB the catch-up on
// spread history did 4,968-5,058 events per CPU-second against 5,384 (docs/ingest.md, "Memory").
const db = openDatabase(data.databasePath, { cacheMiB: 8, logCacheMiB: 4, nativeBinding: data.nativeBinding });
// Checkpoints run on a timer (src/db/checkpointer.ts), never inside a batch.
db.pragma('wal_autocheckpoint = 0');
const report = (message: ProjectorReport) => parentPort!.postMessage(message);
const stopCheckpoints = data.checkpoints ? checkpointPeriodically(db, { onEventLogBacklog: () => report({ type: 'event-log-backlog' }) }) : () => undefined;
const committed = new BigInt64Array(data.committedSeq);
const releaseGarbage = createHeapRelease();
const loop = new ProjectorLoop({
  db,
  now: Date.now,
  committedSeq: () => Number(Atomics.load(committed, 0)),
  intervalMs: data.intervalMs,
  maxEventsPerBatch: data.maxEventsPerBatch,
  subscribers: batchSubscribers,
  onProgress: (progress) => {
    report({ type: 'progress', ...progress });
    // A batch smaller than the configured size found the projector caught up (ProjectorLoop's nextBatchSize).
    releaseGarbage(progress.events < data.maxEventsPerBatch);
  },
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
