// One group commit: every request's batch in one BEGIN IMMEDIATE transaction on the event log, each inside its own
// SAVEPOINT so a failing request rolls back alone. It stores the event rows (and quarantined events) and nothing
// derived from them: the projector (src/projector/) derives visits and reports later, from the stored events.
import { toIso } from '../clock.ts';
import type { Db } from '../db/open.ts';
import { insertDlqRow, newestDlqReceivedAt, type DlqRow } from '../event-store/queries/dlq-rows.ts';
import { insertEvent } from '../event-store/queries/event-rows.ts';
import type { StoredEventInput } from '../event-store/stored-event.ts';
import type { EventDedup } from './event-dedup.ts';

export type DlqInput = Omit<DlqRow, 'received_at'>;

export interface WriteBatch {
  events: StoredEventInput[];
  quarantined: DlqInput[];
}

export interface WriteResult {
  accepted: number;
  /** How many of the accepted events were classified as bots (stored, but never in reports or the stream). */
  bots: number;
  duplicates: number;
  quarantined: number;
  /**
   * The seqs of the batch's stored events, first and last (0 and 0 when none): inside the group's transaction a
   * batch's inserts follow one another, so they are exactly this range (an import records it to delete exactly its events).
   */
  firstSeq?: number;
  lastSeq?: number;
}

/** Per request: its counts, or why its savepoint was rolled back. */
export type WriteOutcome = { ok: true; result: WriteResult } | { ok: false; message: string };

export interface GroupOutcome {
  outcomes: WriteOutcome[];
  /** The highest seq the group stored (0 when it stored none): what the projector has to reach. */
  lastSeq: number;
}

const savepointWriters = new WeakMap<Db, (batch: WriteBatch, receivedAt: number, dedup: EventDedup) => WriteResult & { lastSeq: number }>();

/**
 * Throws only when the transaction as a whole fails (then nothing of the group is durable). The group is first
 * stored without a savepoint per request (two statements less per request): a request's rows fail only on errors
 * that are not its own (the disk), so that attempt almost never throws; when it does, it rolls back whole and the
 * group is stored again with each request in its own savepoint, so one failing request rolls back alone.
 */
export function storeGroup(db: Db, dedup: EventDedup, batches: readonly WriteBatch[], receivedAt: number): GroupOutcome {
  try {
    return db.transaction(() => {
      dedup.beginGroup();
      let lastSeq = 0;
      const outcomes: WriteOutcome[] = batches.map((batch) => {
        const result = storeBatch(db, dedup, batch, receivedAt);
        lastSeq = Math.max(lastSeq, result.lastSeq);
        return { ok: true, result };
      });
      return { outcomes, lastSeq };
    }).immediate();
  } catch {
    // The tail may name rows that rolled back (and whose seqs the next inserts take): build it again.
    dedup.invalidate();
    return storeGroupBySavepoints(db, dedup, batches, receivedAt);
  } finally {
    dedup.endGroup();
  }
}

function storeGroupBySavepoints(db: Db, dedup: EventDedup, batches: readonly WriteBatch[], receivedAt: number): GroupOutcome {
  let writeOne = savepointWriters.get(db);
  if (!writeOne) {
    // Called inside the group transaction, better-sqlite3 runs it as a SAVEPOINT.
    writeOne = db.transaction((batch: WriteBatch, at: number, groupDedup: EventDedup) => storeBatch(db, groupDedup, batch, at));
    savepointWriters.set(db, writeOne);
  }
  const outcomes: WriteOutcome[] = [];
  let lastSeq = 0;
  try {
    db.transaction(() => {
      dedup.beginGroup();
      for (const batch of batches) {
        try {
          const result = writeOne(batch, receivedAt, dedup);
          lastSeq = Math.max(lastSeq, result.lastSeq);
          outcomes.push({ ok: true, result });
        } catch (error) {
          // Its rows rolled back, and their seqs will be taken again: the tail is built again at the next group.
          dedup.invalidate();
          outcomes.push({ ok: false, message: error instanceof Error ? error.message : String(error) });
        }
      }
    }).immediate();
  } catch (error) {
    dedup.invalidate();
    throw error;
  } finally {
    dedup.endGroup();
  }
  return { outcomes, lastSeq };
}

/** Stores one request's events: repeats of (site_id, id) are acknowledged as duplicates and not stored again. */
function storeBatch(db: Db, dedup: EventDedup, batch: WriteBatch, receivedAt: number): WriteResult & { lastSeq: number } {
  let firstSeq = 0;
  let accepted = 0;
  let bots = 0;
  let duplicates = 0;
  let lastSeq = 0;
  for (const input of batch.events) {
    if (dedup.isDuplicate(input)) {
      duplicates++;
      continue;
    }
    lastSeq = insertEvent(db, input, receivedAt);
    dedup.added(input.dedup_key, lastSeq);
    if (firstSeq === 0) firstSeq = lastSeq;
    accepted++;
    // Counted here, not before the write: a repeat of a stored bot event is a duplicate, not a bot.
    bots += input.is_bot;
  }
  storeQuarantined(db, batch.quarantined, receivedAt);
  return { accepted, bots, duplicates, quarantined: batch.quarantined.length, firstSeq, lastSeq };
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
