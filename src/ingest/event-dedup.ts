// Dedup by (site_id, id) without an index written in the acknowledging commit (docs/ingest.md, "Dedup"). A stored
// event is found either in event_keys (sightline.db), which the projector extends in its batches and which holds
// every event up to its watermark `through`, or in this tail: the dedup key and seq of every stored event after
// `through`, in memory. The tail is built from the event log itself (its rows after `through`) the first time, and
// kept by the writer as it inserts; rows another process committed meanwhile are read from the log at the start of
// each group (under the log's write lock, so none can slip in). A hit in either is a candidate only: it is confirmed
// against the stored row by seq (same site, same id), so a stale entry (a rolled-back insert whose seq another event
// took, a deleted site) never makes a new event a duplicate. Crash safety: nothing of this is durable but what the committed rows and
// event_keys hold, and both are read again after a restart.
import { openMainReadOnly, type Db } from '../db/open.ts';
import { eventKeysThrough, seqsOfEventKey } from '../event-store/queries/event-keys.ts';
import { eventKeysAfter, isStoredEvent } from '../event-store/queries/event-rows.ts';
import { newestEventSeq } from '../event-store/queries/newest-events.ts';
import type { StoredEventInput } from '../event-store/stored-event.ts';

const tailKeyOf = (dedupKey: number): number => dedupKey % 0x40000000;

/** Page cache of the writer's connection to sightline.db: it reads one leaf of event_keys per new event. */
const dedupCacheMiB = 2;

export class EventDedup {
  /**
   * tail key → seq (or seqs, when two stored events share it) of the events after `through`. The tail key is the
   * dedup key's low 30 bits: a small integer, so an entry costs about half of one keyed by the whole 52-bit number;
   * a shared key only means one more row confirmed.
   */
  private readonly tail = new Map<number, number | number[]>();
  /** The tail in ingest order, to drop what event_keys came to hold: tailKeys and tailSeqs from `head` on. */
  private tailKeys: number[] = [];
  private tailSeqs: number[] = [];
  private head = 0;
  /** event_keys holds every event up to this seq (as last read). */
  private through = -1;
  /** The tail holds every event of the log up to this seq, from `through` on. */
  private knownThrough = 0;
  private valid = false;

  /**
   * @param log the writer's connection to the event log
   * @param keys a read-only connection to sightline.db (undefined for an in-memory database: the tail alone)
   */
  constructor(
    private readonly log: Db,
    private readonly keys: Db | undefined,
  ) {}

  /** The writer's dedup over `log`, reading event_keys from the sightline.db at `databasePath`. */
  static open(log: Db, databasePath: string, options: { nativeBinding?: string } = {}): EventDedup {
    return new EventDedup(log, openMainReadOnly(databasePath, { cacheMiB: dedupCacheMiB, ...options }));
  }

  close(): void {
    this.keys?.close();
  }

  /** Inside the group's write transaction on the log, before its first event: reads event_keys' watermark. */
  beginGroup(): void {
    let through = 0;
    if (this.keys) {
      // One snapshot of event_keys for the whole group (a retry of the group keeps it).
      if (!this.keys.inTransaction) this.keys.exec('BEGIN');
      through = eventKeysThrough(this.keys);
    }
    if (!this.valid || through < this.through) this.rebuild(through);
    else this.dropThrough(through);
    const newest = newestEventSeq(this.log);
    if (newest > this.knownThrough) this.load(this.knownThrough, newest);
  }

  /**
   * Builds the tail now (at start, before the first request) rather than in the first group. Outside the log's write
   * lock: what is committed meanwhile is read at the next group's start, as any other connection's rows are.
   */
  warm(): void {
    if (!this.keys) return; // an in-memory database: at its first group
    try {
      this.beginGroup();
    } finally {
      // Never leave the read snapshot open: it would hold sightline.db's checkpoints back.
      this.endGroup();
    }
  }

  /** After the group, committed or not. */
  endGroup(): void {
    if (this.keys?.inTransaction) this.keys.exec('COMMIT');
  }

  /** After a group or a request that rolled back: the tail may name rows that are gone; rebuilt at the next group. */
  invalidate(): void {
    this.valid = false;
  }

  isDuplicate(event: Pick<StoredEventInput, 'dedup_key' | 'site_id' | 'id'>): boolean {
    const inTail = this.tail.get(tailKeyOf(event.dedup_key));
    if (inTail !== undefined) {
      if (typeof inTail === 'number') {
        if (isStoredEvent(this.log, inTail, event)) return true;
      } else if (inTail.some((seq) => isStoredEvent(this.log, seq, event))) return true;
    }
    if (!this.keys) return false;
    return seqsOfEventKey(this.keys, event.dedup_key).some((seq) => isStoredEvent(this.log, seq, event));
  }

  /** The writer stored an event. */
  added(dedupKey: number, seq: number): void {
    this.add(dedupKey, seq);
    if (seq > this.knownThrough) this.knownThrough = seq;
  }

  /** Events in the tail (for tests and metrics). */
  get size(): number {
    return this.tailKeys.length - this.head;
  }

  private rebuild(through: number): void {
    this.tail.clear();
    this.tailKeys = [];
    this.tailSeqs = [];
    this.head = 0;
    this.through = through;
    this.knownThrough = through;
    this.valid = true;
  }

  private load(after: number, upTo: number): void {
    for (const [dedupKey, seq] of eventKeysAfter(this.log, after)) {
      if (seq > upTo) break;
      this.add(dedupKey, seq);
    }
    this.knownThrough = upTo;
  }

  private add(dedupKey: number, seq: number): void {
    const key = tailKeyOf(dedupKey);
    const present = this.tail.get(key);
    if (present === undefined) this.tail.set(key, seq);
    else if (typeof present === 'number') this.tail.set(key, [present, seq]);
    else present.push(seq);
    this.tailKeys.push(key);
    this.tailSeqs.push(seq);
  }

  /** Drops the events event_keys now holds (seq up to `through`). */
  private dropThrough(through: number): void {
    this.through = through;
    let head = this.head;
    while (head < this.tailSeqs.length && this.tailSeqs[head]! <= through) {
      const key = this.tailKeys[head]!;
      const present = this.tail.get(key);
      if (typeof present === 'number') {
        if (present <= through) this.tail.delete(key);
      } else if (present !== undefined) {
        const rest = present.filter((seq) => seq > through);
        if (rest.length === 0) this.tail.delete(key);
        else this.tail.set(key, rest.length === 1 ? rest[0]! : rest);
      }
      head++;
    }
    if (head > 4096 && head * 2 > this.tailSeqs.length) {
      this.tailKeys = this.tailKeys.slice(head);
      this.tailSeqs = this.tailSeqs.slice(head);
      head = 0;
    }
    this.head = head;
  }
}
