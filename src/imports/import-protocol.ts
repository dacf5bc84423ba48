// What the HTTP thread and an import thread say to each other (import-runner.ts, import-thread.ts): the thread runs
// one job with its own connections and its own group commits, reports each committed batch (the projector's wake-up
// call) and its final progress; the HTTP thread may ask it to stop at its next batch.
import type { Synchronous } from '../db/open.ts';
import type { ImportProgress } from './queries/import-rows.ts';
import type { ImportJob } from './run-import.ts';

export interface ImportThreadData {
  databasePath: string;
  synchronous?: Synchronous;
  nativeBinding?: string;
  job: ImportJob;
  /** The HTTP thread's clock at the job's start: the thread's clock runs on from it (a test's manual clock too). */
  nowMs: number;
  /** Events in one commit: short, since the HTTP thread's ingest commits wait for the same lock meanwhile. */
  maxEventsPerCommit: number;
}

export type ImportThreadCommand = { type: 'stop' };

export type ImportThreadReport = { type: 'committed'; lastSeq: number } | { type: 'done'; progress: ImportProgress };
