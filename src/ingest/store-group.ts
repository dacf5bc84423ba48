// One group commit: every request's batch in one BEGIN IMMEDIATE transaction, each inside its own SAVEPOINT so a
// failing request rolls back alone. Runs wherever the writer runs (the writer thread, or inline).
import { toIso } from '../clock.ts';
import { beginCommitCaches, dropTentativeCommitCaches, endCommitCaches } from '../db/commit-caches.ts';
import type { Db } from '../db/open.ts';
import { insertDlqRow, newestDlqReceivedAt, type DlqRow } from '../dlq/queries/dlq-rows.ts';
import { eventExists, insertEvent } from '../event-store/queries/event-rows.ts';
import { bindIdentity } from '../projector/queries/identity-rows.ts';
import { assignToSession } from '../projector/visits.ts';
import type { StoredEvent, StoredEventInput } from '../event-store/stored-event.ts';
import { writeListeners } from './write-listeners.ts';

export type DlqInput = Omit<DlqRow, 'received_at'>;

export interface WriteBatch {
  events: StoredEventInput[];
  quarantined: DlqInput[];
}

export interface WriteResult {
  accepted: number;
  duplicates: number;
  quarantined: number;
}

/** Per request: its counts, or why its savepoint was rolled back. */
export type WriteOutcome = { ok: true; result: WriteResult } | { ok: false; message: string };

const savepointWriters = new WeakMap<Db, (batch: WriteBatch, receivedAt: number) => WriteResult>();

/** Throws only when the transaction as a whole fails (then nothing of the group is durable). */
export function storeGroup(db: Db, batches: readonly WriteBatch[], receivedAt: number): WriteOutcome[] {
  let writeOne = savepointWriters.get(db);
  if (!writeOne) {
    // Called inside the group transaction, better-sqlite3 runs it as a SAVEPOINT.
    writeOne = db.transaction((batch: WriteBatch, at: number) => storeBatch(db, batch, at));
    savepointWriters.set(db, writeOne);
  }
  const outcomes: WriteOutcome[] = [];
  const listeners = writeListeners();
  let committed = false;
  try {
    db.transaction(() => {
      beginCommitCaches(db);
      for (const batch of batches) {
        try {
          outcomes.push({ ok: true, result: writeOne(batch, receivedAt) });
          for (const listener of listeners) listener.onBatchEnd?.(db, true);
        } catch (error) {
          dropTentativeCommitCaches(db);
          for (const listener of listeners) listener.onBatchEnd?.(db, false);
          outcomes.push({ ok: false, message: error instanceof Error ? error.message : String(error) });
        }
      }
      for (const listener of listeners) listener.beforeCommit?.(db);
    }).immediate();
    committed = true;
  } finally {
    endCommitCaches(db, committed);
  }
  return outcomes;
}

/** Stores one request's events: repeats of (site_id, id) are acknowledged as duplicates and not stored again. */
function storeBatch(db: Db, batch: WriteBatch, receivedAt: number): WriteResult {
  let accepted = 0;
  let duplicates = 0;
  const listeners = writeListeners();
  for (const input of batch.events) {
    if (eventExists(db, input)) {
      duplicates++;
      continue;
    }
    const seq = insertEvent(db, input, receivedAt);
    const stored: StoredEvent = { ...input, seq, received_at: receivedAt };
    if (input.user_id !== null) bindIdentity(db, { site_id: input.site_id, anon_id: input.anon_id, user_id: input.user_id, ts: input.ts });
    if (!input.is_bot) assignToSession(db, stored);
    for (const listener of listeners) listener.onEventStored?.(db, stored);
    accepted++;
  }
  storeQuarantined(db, batch.quarantined, receivedAt);
  return { accepted, duplicates, quarantined: batch.quarantined.length };
}

function storeQuarantined(db: Db, rows: DlqInput[], receivedAt: number): void {
  if (rows.length === 0) return;
  // received_at is strictly increasing per site so the DLQ's ISO cursor never splits two rows.
  const newest = newestDlqReceivedAt(db, rows[0]!.site_id);
  let next = Math.max(receivedAt, newest ? Date.parse(newest) + 1 : 0);
  for (const row of rows) {
    insertDlqRow(db, { ...row, received_at: toIso(next) });
    next++;
  }
}
