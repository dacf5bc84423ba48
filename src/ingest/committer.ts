// Where group commits run: on a writer thread (the default: commits and their fsync never block the HTTP thread,
// and the machine's second core does the SQLite work) or inline on this thread (when no worker can be started).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Db } from '../db/open.ts';
import { checkIdleWorkPeriodically, scheduleIdleWork } from './idle-work.ts';
import { storeGroup, type WriteBatch, type WriteOutcome } from './store-group.ts';
import type { WriterReply, WriterRequest, WriterThreadData } from './writer-thread.ts';
import './write-listener-modules.ts';

export interface CommitResult {
  outcomes: WriteOutcome[];
  commitMs: number;
}

export interface Committer {
  readonly kind: 'thread' | 'inline';
  /** Rejects when the transaction as a whole failed: nothing of the group is durable then. */
  commit(batches: WriteBatch[], receivedAt: number): Promise<CommitResult>;
  close(): Promise<void>;
}

export function createInlineCommitter(db: Db): Committer {
  const stopIdleChecks = checkIdleWorkPeriodically(db);
  return {
    kind: 'inline',
    commit: async (batches, receivedAt) => {
      const started = performance.now();
      const outcomes = storeGroup(db, batches, receivedAt);
      const commitMs = performance.now() - started;
      scheduleIdleWork(db);
      return { outcomes, commitMs };
    },
    close: async () => stopIdleChecks(),
  };
}

/** dist/writer-thread.mjs next to the bundle, or the built one when running from src/ (tests build first). */
export function writerThreadFile(): string | undefined {
  const candidates = [new URL('./writer-thread.mjs', import.meta.url), new URL('../../dist/writer-thread.mjs', import.meta.url)];
  for (const candidate of candidates) {
    if (candidate.protocol !== 'file:') continue;
    const path = fileURLToPath(candidate);
    if (existsSync(path)) return path;
  }
  return undefined;
}

export function createThreadCommitter(db: Db, file: string, nativeBinding?: string): Committer {
  const data: WriterThreadData = { databasePath: db.name, ...(nativeBinding ? { nativeBinding } : {}) };
  let worker: Worker;
  let nextId = 1;
  const waiting = new Map<number, { resolve(result: CommitResult): void; reject(error: Error): void }>();
  let closing = false;
  let closed: Promise<void> | undefined;

  const start = () => {
    worker = new Worker(file, { workerData: data });
    worker.on('message', (message: string) => {
      if (message === 'ready') return;
      const reply = JSON.parse(message) as WriterReply;
      const pending = waiting.get(reply.id);
      if (!pending) return;
      waiting.delete(reply.id);
      if (reply.ok) pending.resolve({ outcomes: reply.outcomes, commitMs: reply.commitMs });
      else pending.reject(new Error(reply.message));
    });
    worker.on('exit', (code) => {
      // Whatever was in flight is unknown: fail it (callers answer 503 and clients retry; dedup makes that safe).
      for (const pending of waiting.values()) pending.reject(new Error(`writer thread exited with code ${code}`));
      waiting.clear();
      if (!closing) start();
    });
    worker.on('error', () => {
      // 'exit' follows and restarts the thread.
    });
  };
  start();

  return {
    kind: 'thread',
    commit: (batches, receivedAt) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        // A JSON string crosses the thread boundary far cheaper than a structured clone of many small objects.
        const request: WriterRequest = { id, batches, receivedAt };
        worker.postMessage(JSON.stringify(request));
      }),
    close: () => {
      if (!closed) {
        closing = true;
        closed = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        worker.postMessage('close');
      }
      return closed;
    },
  };
}
