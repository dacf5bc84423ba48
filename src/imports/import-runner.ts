// Runs a process's import jobs one after another, off the request that created them (it was answered 202). With the
// bundle built (dist/import-thread.mjs) and a database on disk, each job runs on a thread of its own
// (import-thread.ts): parsing, checking and its group commits never hold the HTTP thread, which only hears of each
// committed batch (to wake the projector) and of the job's end. Else (an in-memory database) the job runs here,
// awaiting the write queue between batches.
import { rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { consola } from 'consola';
import { toIso } from '../clock.ts';
import type { Synchronous } from '../db/open.ts';
import { failUnfinishedImport } from './queries/import-rows.ts';
import type { ImportThreadCommand, ImportThreadData, ImportThreadReport } from './import-protocol.ts';
import { type ImportDeps, type ImportJob, runImport } from './run-import.ts';

export interface ImportRunner {
  readonly kind: 'thread' | 'inline';
  enqueue(job: ImportJob & { removeFileAfter: boolean }): void;
  /** Resolves when every job queued so far has finished. */
  idle(): Promise<void>;
  /** Stops the running job at its next batch, fails the queued ones, and resolves when done. */
  close(): Promise<void>;
}

/** Events in one commit of an import thread: a few milliseconds of the event log's write lock, which ingest waits for. */
export const threadEventsPerCommit = 500;

/** The import thread's V8 heaps (MiB): as the CLI's launcher sizes them (bin/sightline), the old space half of its cap. */
const importThreadHeaps = { maxYoungGenerationSizeMb: 12, maxOldGenerationSizeMb: 256 };

export interface ImportThreadOptions {
  file: string;
  databasePath: string;
  synchronous?: Synchronous;
  nativeBinding?: string;
  /** Told of each batch the thread committed (its highest seq): the projector's wake-up call. */
  onCommitted(lastSeq: number): void;
}

export function createImportRunner(deps: ImportDeps, thread?: ImportThreadOptions): ImportRunner {
  let chain: Promise<void> = Promise.resolve();
  let stopping = false;
  let running: Worker | undefined;
  deps = { ...deps, stopping: () => stopping };
  const runOnThread = (job: ImportJob, options: ImportThreadOptions) =>
    new Promise<void>((resolve) => {
      const data: ImportThreadData = {
        databasePath: options.databasePath,
        synchronous: options.synchronous,
        nativeBinding: options.nativeBinding,
        job: { id: job.id, siteId: job.siteId, format: job.format, path: job.path },
        nowMs: deps.context.clock.now(),
        maxEventsPerCommit: threadEventsPerCommit,
      };
      // Bounded heaps: the job holds at most one sort run (16 MiB of events) and one batch; without a bound V8 sizes
      // the thread's heap from the machine's memory and lets garbage grow well past what the job uses.
      const worker = new Worker(options.file, { workerData: data, resourceLimits: importThreadHeaps });
      running = worker;
      if (stopping) worker.postMessage({ type: 'stop' } satisfies ImportThreadCommand);
      worker.on('message', (report: ImportThreadReport) => {
        if (report.type === 'committed' && report.lastSeq > 0) options.onCommitted(report.lastSeq);
      });
      let failure = 'the import thread stopped before the import finished';
      worker.on('error', (error) => {
        failure = `the import thread failed: ${error.message}`;
        consola.error('import thread failed:', error);
      });
      worker.on('exit', () => {
        running = undefined;
        // A thread that died mid-job left its row running: it is failed here (what it stored goes with a DELETE).
        failUnfinishedImport(deps.context.db, job.id, toIso(deps.context.clock.now()), failure);
        resolve();
      });
    });
  return {
    kind: thread ? 'thread' : 'inline',
    close: async () => {
      stopping = true;
      running?.postMessage({ type: 'stop' } satisfies ImportThreadCommand);
      await chain;
    },
    enqueue(job) {
      chain = chain.then(async () => {
        try {
          if (thread) await runOnThread(job, thread);
          else await runImport(deps, job);
        } catch (error) {
          consola.error('import failed:', error);
        } finally {
          if (job.removeFileAfter) await rm(job.path, { force: true });
        }
      });
    },
    idle: () => chain,
  };
}
