// An import thread's entry (bundled to dist/import-thread.mjs): one import job run off the HTTP thread, so parsing,
// checking and storing a multi-gigabyte file never holds up a request. It has its own connection to sightline.db
// (the import's row, its seq ranges) and its own group commits to the event log, as `sightline import` beside a
// running server has (the ingest dedup reads what another connection committed at each group's start).
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.ts';
import { createInlineCommitter } from '../ingest/committer.ts';
import { WriteQueue } from '../ingest/write-queue.ts';
import { createAppMetrics } from '../metrics/app-metrics.ts';
import type { ImportThreadCommand, ImportThreadData, ImportThreadReport } from './import-protocol.ts';
import { runImport } from './run-import.ts';

const data = workerData as ImportThreadData;
const report = (message: ImportThreadReport) => parentPort!.postMessage(message);
let stopping = false;
parentPort!.on('message', (command: ImportThreadCommand) => {
  if (command.type === 'stop') stopping = true;
});

const startedAt = Date.now();
const clock = { now: () => data.nowMs + (Date.now() - startedAt) };
const db = openDatabase(data.databasePath, { cacheMiB: 4, logCacheMiB: 2, nativeBinding: data.nativeBinding });
// This thread may wait for sightline.db's lock as long as the projector's longest batch holds it (seconds on a loaded
// machine): waiting blocks this thread alone, where failing would fail the import.
db.pragma('busy_timeout = 120000');
const committer = createInlineCommitter({ databasePath: data.databasePath, synchronous: data.synchronous, nativeBinding: data.nativeBinding });
const writeQueue = new WriteQueue(committer, clock, createAppMetrics(db), { maxEventsPerCommit: data.maxEventsPerCommit, maxCommitsInFlight: 1 });
async function run(): Promise<void> {
  try {
    const progress = await runImport(
      { context: { db, clock }, writeQueue, stopping: () => stopping, afterBatch: (lastSeq) => report({ type: 'committed', lastSeq }), batchSize: data.maxEventsPerCommit },
      data.job,
    );
    report({ type: 'done', progress });
  } finally {
    await writeQueue.drain();
    db.close();
    parentPort!.close();
  }
}

// Not a top-level await: the single executable bundles the threads as CommonJS.
void run();
