// WAL checkpoints of both files (sightline.db and the event log) run on a timer, off the ingest path: automatic
// checkpoints would otherwise run inside a commit and turn a 0.5 ms group commit into a 10 ms one. A worker thread with its own connection does them; where a
// worker cannot load the driver (the single executable), the same timer runs on the main thread.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type Db, eventLogPath } from './open.ts';

export type CheckpointMode = 'worker' | 'inline';

export interface Checkpointer {
  stop(): Promise<void>;
}

const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
// Checkpoints are background work: on Linux, lower this thread's priority so the HTTP thread and the writer win
// the CPU (a thread id works with setpriority).
try {
  const threadId = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(threadId, 19);
} catch {}
const Database = require(workerData.driverPath);
const db = new Database(workerData.databasePath, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('busy_timeout = 5000');
// Both files: a checkpoint without a schema name checkpoints every attached database.
if (workerData.eventLogPath) db.prepare('ATTACH DATABASE ? AS eventlog').run(workerData.eventLogPath);
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { parentPort.postMessage({ error: String(error) }); }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'stop') { clearInterval(timer); db.close(); parentPort.close(); }
});
parentPort.postMessage({ ready: true });
`;

function startInline(db: Db, intervalMs: number): Checkpointer {
  const timer = setInterval(() => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // busy: the next tick tries again
    }
  }, intervalMs);
  timer.unref();
  return { stop: async () => clearInterval(timer) };
}

/**
 * Turns automatic checkpoints off on `db` and checkpoints every `intervalMs` instead.
 * @example const checkpointer = startCheckpointer(db, 'worker'); ...; await checkpointer.stop();
 */
export function startCheckpointer(db: Db, mode: CheckpointMode, intervalMs = 1000, nativeBinding?: string): Checkpointer {
  db.pragma('wal_autocheckpoint = 0');
  if (mode === 'inline' || db.memory) return startInline(db, intervalMs);
  let driverPath: string;
  try {
    driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  } catch {
    return startInline(db, intervalMs);
  }
  const worker = new Worker(workerSource, { eval: true, workerData: { driverPath, databasePath: db.name, eventLogPath: eventLogPath(db.name), intervalMs, nativeBinding } });
  worker.unref();
  let fallback: Checkpointer | undefined;
  worker.on('error', () => {
    fallback ??= startInline(db, intervalMs);
  });
  return {
    stop: async () => {
      await fallback?.stop();
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 2000).unref())]);
      await worker.terminate();
      // One last full checkpoint so the WAL does not outlive a clean stop.
      try {
        db.pragma('wal_checkpoint(TRUNCATE)');
      } catch {
        // another process holds a read lock: the next start checkpoints
      }
    },
  };
}
