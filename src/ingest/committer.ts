// Where group commits run: inline on the HTTP thread (the default: a commit of event rows costs less than the hand-off
// to a thread and back on 2 cores) or on a writer thread (INGEST_WRITER=thread: long commits, such as large batches
// or synchronous=FULL's fsync, then never block the HTTP thread). Either way the connection is the event log's alone
// (openEventLog): a commit locks events.db and nothing else.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { embeddedFile, isSingleExecutable } from '../binary/embedded.ts';
import { checkpointPassive } from '../db/checkpointer.ts';
import { openEventLog, type Synchronous } from '../db/open.ts';
import { EventDedup } from './event-dedup.ts';
import { storeGroup, type WriteBatch, type WriteOutcome } from './store-group.ts';
import { writerCacheMiB, type WriterReply, type WriterRequest, type WriterThreadData } from './writer-protocol.ts';

export interface CommitResult {
  outcomes: WriteOutcome[];
  /** The highest seq the group stored (0 when none). */
  lastSeq: number;
  commitMs: number;
}

export interface Committer {
  readonly kind: 'thread' | 'inline';
  /** Rejects when the transaction as a whole failed: nothing of the group is durable then. */
  commit(batches: WriteBatch[], receivedAt: number): Promise<CommitResult>;
  /**
   * A PASSIVE checkpoint of the event log on the writer's own connection, between two commits: it copies what the
   * projector thread's checkpoint could not catch up with, so the next commit starts the WAL over.
   */
  finishCheckpoint(): void;
  close(): Promise<void>;
}

export interface CommitterOptions {
  /** sightline.db's path: the event log is the events.db beside it. */
  databasePath: string;
  synchronous?: Synchronous;
  nativeBinding?: string;
}

export function createInlineCommitter(options: CommitterOptions): Committer {
  const log = openEventLog(options.databasePath, { cacheMiB: writerCacheMiB, synchronous: options.synchronous, nativeBinding: options.nativeBinding });
  // Checkpoints run on their own timer (src/db/checkpointer.ts), never inside a commit.
  log.pragma('wal_autocheckpoint = 0');
  const dedup = EventDedup.open(log, options.databasePath, { nativeBinding: options.nativeBinding });
  dedup.warm();
  return {
    kind: 'inline',
    commit: async (batches, receivedAt) => {
      const started = performance.now();
      const { outcomes, lastSeq } = storeGroup(log, dedup, batches, receivedAt);
      return { outcomes, lastSeq, commitMs: performance.now() - started };
    },
    finishCheckpoint: () => {
      checkpointPassive(log);
    },
    close: async () => {
      dedup.close();
      log.close();
    },
  };
}

/** dist/writer-thread.mjs next to the bundle, or the built one when running from src/ (tests build first). */
export function writerThreadFile(): string | undefined {
  return builtWorkerFile('writer-thread.mjs');
}

/**
 * A worker bundle: inside the single executable its embedded CommonJS bundle (written to a private directory),
 * else the one next to this bundle, or in dist/ when running from src/.
 */
export function builtWorkerFile(name: string): string | undefined {
  if (isSingleExecutable()) return embeddedFile(`worker/${name.replace(/\.mjs$/, '.cjs')}`);
  const candidates = [new URL(`./${name}`, import.meta.url), new URL(`../../dist/${name}`, import.meta.url)];
  for (const candidate of candidates) {
    if (candidate.protocol !== 'file:') continue;
    const path = fileURLToPath(candidate);
    if (existsSync(path)) return path;
  }
  return undefined;
}

export function createThreadCommitter(file: string, options: CommitterOptions): Committer {
  const data: WriterThreadData = { databasePath: options.databasePath, synchronous: options.synchronous, nativeBinding: options.nativeBinding };
  let worker: Worker;
  let nextId = 1;
  const waiting = new Map<number, { resolve(result: CommitResult): void; reject(error: Error): void }>();
  let closing = false;
  let closed: Promise<void> | undefined;

  const start = () => {
    // Commits allocate little (a JSON string in, one out): a small young generation saves memory, not time.
    worker = new Worker(file, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    worker.on('message', (message: string) => {
      if (message === 'ready') return;
      const reply = JSON.parse(message) as WriterReply;
      const pending = waiting.get(reply.id);
      if (!pending) return;
      waiting.delete(reply.id);
      if (reply.ok) pending.resolve({ outcomes: reply.outcomes, lastSeq: reply.lastSeq, commitMs: reply.commitMs });
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
    finishCheckpoint: () => {
      worker.postMessage('checkpoint');
    },
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
