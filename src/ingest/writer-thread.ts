// The writer thread's entry: its own connection, the group commit, nothing else. Bundled to dist/writer-thread.mjs.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.ts';
import { checkIdleWorkPeriodically, scheduleIdleWork } from './idle-work.ts';
import { type WriteBatch, storeGroup } from './store-group.ts';
import './write-listener-modules.ts';

export interface WriterThreadData {
  databasePath: string;
  nativeBinding?: string;
}

export type WriterRequest = { id: number; batches: WriteBatch[]; receivedAt: number };
export type WriterReply =
  | { id: number; ok: true; outcomes: ReturnType<typeof storeGroup>; commitMs: number }
  | { id: number; ok: false; message: string };

const data = workerData as WriterThreadData;
const db = openDatabase(data.databasePath, data.nativeBinding ? { nativeBinding: data.nativeBinding } : {});
// Checkpoints run on their own timer (src/db/checkpointer.ts), never inside a commit.
db.pragma('wal_autocheckpoint = 0');

parentPort!.on('message', (text: string) => {
  if (text === 'close') {
    stopIdleChecks();
    db.close();
    parentPort!.close();
    return;
  }
  const message = JSON.parse(text) as WriterRequest;
  const started = performance.now();
  let reply: WriterReply;
  try {
    const outcomes = storeGroup(db, message.batches, message.receivedAt);
    reply = { id: message.id, ok: true, outcomes, commitMs: performance.now() - started };
  } catch (error) {
    reply = { id: message.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(JSON.stringify(reply));
  scheduleIdleWork(db);
});
parentPort!.postMessage('ready');
const stopIdleChecks = checkIdleWorkPeriodically(db);
