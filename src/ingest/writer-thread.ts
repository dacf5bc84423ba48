// The writer thread's entry: the event log's connection and the group commit, nothing else. Bundled to
// dist/writer-thread.mjs.
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointPassive } from '../db/checkpointer.ts';
import { openEventLog } from '../db/open.ts';
import { EventDedup } from './event-dedup.ts';
import { storeGroup } from './store-group.ts';
import { writerCacheMiB, type WriterReply, type WriterRequest, type WriterThreadData } from './writer-protocol.ts';

const data = workerData as WriterThreadData;
const log = openEventLog(data.databasePath, { cacheMiB: writerCacheMiB, synchronous: data.synchronous, nativeBinding: data.nativeBinding });
// Checkpoints run on their own timer (src/db/checkpointer.ts), never inside a commit.
log.pragma('wal_autocheckpoint = 0');
const dedup = EventDedup.open(log, data.databasePath, { nativeBinding: data.nativeBinding });
dedup.warm();

parentPort!.on('message', (text: string) => {
  if (text === 'close') {
    dedup.close();
    log.close();
    parentPort!.close();
    return;
  }
  if (text === 'checkpoint') {
    checkpointPassive(log);
    return;
  }
  const message = JSON.parse(text) as WriterRequest;
  const started = performance.now();
  let reply: WriterReply;
  try {
    const { outcomes, lastSeq } = storeGroup(log, dedup, message.batches, message.receivedAt);
    reply = { id: message.id, ok: true, outcomes, lastSeq, commitMs: performance.now() - started };
  } catch (error) {
    reply = { id: message.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(JSON.stringify(reply));
});
parentPort!.postMessage('ready');
