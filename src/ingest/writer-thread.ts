// The writer thread's entry: its own connection, the group commit, nothing else. Bundled to dist/writer-thread.mjs.
// Groups the HTTP thread sent while a commit ran wait in the port's queue; the writer takes them all and commits
// them in one transaction (up to maxEventsPerCommit), so a busy writer commits larger groups, not more of them.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.ts';
import { checkIdleWorkPeriodically, scheduleIdleWork } from './idle-work.ts';
import { type WriteBatch, type WriteOutcome, storeGroup } from './store-group.ts';
import './write-listener-modules.ts';

export interface WriterThreadData {
  databasePath: string;
  nativeBinding?: string;
  /** Events in one transaction at most (a commit stays short); one group is never split. */
  maxEventsPerCommit: number;
}

export type WriterRequest = { id: number; batches: WriteBatch[]; receivedAt: number };
/** The transaction a group was committed in: several groups may share one (metrics count it once). */
export interface CommittedIn {
  transaction: number;
  events: number;
  commitMs: number;
}
export type WriterReply = { id: number; ok: true; outcomes: WriteOutcome[]; committedIn: CommittedIn } | { id: number; ok: false; message: string };

const data = workerData as WriterThreadData;
const db = openDatabase(data.databasePath, data.nativeBinding ? { nativeBinding: data.nativeBinding } : {});
// Checkpoints run on their own timer (src/db/checkpointer.ts), never inside a commit.
db.pragma('wal_autocheckpoint = 0');

const waiting: WriterRequest[] = [];
let closeRequested = false;
let transactions = 0;

function eventsOf(request: WriterRequest): number {
  return request.batches.reduce((sum, batch) => sum + batch.events.length + batch.quarantined.length, 0);
}

function take(text: string): void {
  if (text === 'close') closeRequested = true;
  else waiting.push(JSON.parse(text) as WriterRequest);
}

/** Commits the waiting groups, as many per transaction as fit, and answers each. */
function commitWaiting(): void {
  while (waiting.length > 0) {
    const group: WriterRequest[] = [];
    let events = 0;
    while (waiting.length > 0 && (group.length === 0 || events + eventsOf(waiting[0]!) <= data.maxEventsPerCommit)) {
      const next = waiting.shift()!;
      group.push(next);
      events += eventsOf(next);
    }
    const started = performance.now();
    let replies: WriterReply[];
    try {
      const outcomes = storeGroup(
        db,
        group.flatMap((request) => request.batches),
        Math.max(...group.map((request) => request.receivedAt)),
      );
      const committedIn: CommittedIn = { transaction: ++transactions, events, commitMs: performance.now() - started };
      let at = 0;
      replies = group.map((request) => {
        const mine = outcomes.slice(at, (at += request.batches.length));
        return { id: request.id, ok: true, outcomes: mine, committedIn };
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      replies = group.map((request) => ({ id: request.id, ok: false, message }));
    }
    for (const reply of replies) parentPort!.postMessage(JSON.stringify(reply));
  }
}

parentPort!.on('message', (text: string) => {
  take(text);
  for (let queued = receiveMessageOnPort(parentPort!); queued && !closeRequested; queued = receiveMessageOnPort(parentPort!)) {
    take(queued.message as string);
  }
  commitWaiting();
  if (closeRequested) {
    stopIdleChecks();
    db.close();
    parentPort!.close();
    return;
  }
  scheduleIdleWork(db);
});
parentPort!.postMessage('ready');
const stopIdleChecks = checkIdleWorkPeriodically(db);
