// Runs a process's import jobs one after another, off the request that created them (it was answered 202); each job
// streams its file and awaits the write queue between batches, so ingest keeps being served meanwhile.
import { rm } from 'node:fs/promises';
import { consola } from 'consola';
import { type ImportDeps, type ImportJob, runImport } from './run-import.ts';

export interface ImportRunner {
  enqueue(job: ImportJob & { removeFileAfter: boolean }): void;
  /** Resolves when every job queued so far has finished. */
  idle(): Promise<void>;
  /** Stops the running job at its next batch, fails the queued ones, and resolves when done. */
  close(): Promise<void>;
}

export function createImportRunner(deps: ImportDeps): ImportRunner {
  let chain: Promise<void> = Promise.resolve();
  let stopping = false;
  deps = { ...deps, stopping: () => stopping };
  return {
    close: async () => {
      stopping = true;
      await chain;
    },
    enqueue(job) {
      chain = chain.then(async () => {
        try {
          await runImport(deps, job);
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
