// The analysis thread's entry (bundled to dist/analysis-thread.mjs): its own read-only connection to sightline.db
// (the event log attached), a read model over it, and one job at a time, so the HTTP thread keeps answering and
// committing meanwhile. The jobs are the domains' (src/analysis-jobs.ts); the runner that feeds this thread is
// src/analysis/analysis-runner.ts.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { analysisJobs } from './analysis-jobs.ts';
import { holdAtGate } from './analysis/analysis-gate.ts';
import { type AnalysisJob, runAnalysisJob } from './analysis/analysis-job.ts';
import type { AnalysisThreadData } from './analysis/analysis-runner.ts';
import { cryptoRandom } from './clock.ts';
import { openDatabase } from './db/open.ts';
import { createClickHouse } from './clickhouse/client.ts';
import { analysisReadModelFor } from './read-model/clickhouse/analysis-read-model.ts';
import { trimmedThroughDayOf } from './clickhouse/log-trimming.ts';
import { adoptCursorSecret } from './reading/cursor.ts';

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
// The HTTP thread waited for the projector (and the shipper) before handing a job over: the read model reports that
// wait. With ClickHouse configured, history is read there (the embedded log may have been trimmed).
const side = { db, random: cryptoRandom, limits: data.limits, readModelFor: analysisReadModelFor(db, historyOf(data.clickhouse)) };

/** ClickHouse and the days LOG_RETAIN_DAYS may have trimmed, by this thread's clock (the HTTP thread uses the app's). */
function historyOf(settings: AnalysisThreadData['clickhouse']) {
  if (!settings) return undefined;
  return { clickhouse: createClickHouse(settings.connection), trimmedThroughDay: trimmedThroughDayOf(() => Date.now(), settings.logRetainDays) };
}

parentPort!.on('message', (text: string) => {
  if (text === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  if (data.gate) holdAtGate(data.gate, parentPort!);
  void runAnalysisJob(side, analysisJobs, JSON.parse(text) as AnalysisJob).then((outcome) => parentPort!.postMessage(JSON.stringify(outcome)));
});
parentPort!.postMessage('ready');
