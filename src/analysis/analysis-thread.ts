// The analysis thread's entry: its own read-only connection to sightline.db (the event log attached), and one job at
// a time (funnel, correlation, explanation), so the HTTP thread keeps answering and committing meanwhile. Bundled to
// dist/analysis-thread.mjs.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { cryptoRandom } from '../clock.ts';
import { openDatabase } from '../db/open.ts';
import { adoptCursorSecret } from '../reading/cursor.ts';
import type { AnalysisLimits } from './analysis-context.ts';
import { holdAtGate } from './analysis-gate.ts';
import { type AnalysisJob, runAnalysisJob } from './analysis-job.ts';

export interface AnalysisThreadData {
  databasePath: string;
  /** The database's cursor secret (execution_id is signed with it): a read-only connection could not store one. */
  cursorSecret: Uint8Array;
  limits: AnalysisLimits;
  /** Nice value of this thread: acknowledgements and short reads go first when the cores are busy. */
  niceness: number;
  /** Tests only (src/analysis/analysis-gate.ts). */
  gate?: SharedArrayBuffer;
  nativeBinding?: string;
}

/** From the HTTP thread: a job as JSON text, or 'close'. To it: 'ready', 'held' (the test gate), an outcome as JSON text. */
const data = workerData as AnalysisThreadData;
try {
  // setpriority with a thread id (Linux): this thread only.
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), data.niceness);
} catch {
  // not Linux, or not permitted: run at the process's priority
}
const db = openDatabase(data.databasePath, { readonly: true, cacheMiB: 16, logCacheMiB: 8, nativeBinding: data.nativeBinding });
adoptCursorSecret(db, Buffer.from(data.cursorSecret));
const context = { db, random: cryptoRandom, limits: data.limits };

parentPort!.on('message', (text: string) => {
  if (text === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  if (data.gate) holdAtGate(data.gate, parentPort!);
  const outcome = runAnalysisJob(context, JSON.parse(text) as AnalysisJob);
  parentPort!.postMessage(JSON.stringify(outcome));
});
parentPort!.postMessage('ready');
