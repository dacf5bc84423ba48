// The dedup index of the stored events, kept out of the acknowledging commit: event_keys (sightline.db) holds the
// dedup key and seq of every stored event up to event_keys_through; the projector extends it in its batches. The
// writer keeps the events after that seq in memory (src/ingest/event-dedup.ts) and reads this index, on a connection
// of its own, for the rest.
import type { Db } from '../../db/open.ts';
import { inWriteTransaction, preparedOnce } from '../../db/statements.ts';
import { highestSeqIssued } from './newest-events.ts';

// Reads, on any connection to sightline.db (the writer's has no event log attached).
const reads = preparedOnce((db) => ({
  through: db.prepare<[], number>('SELECT seq FROM event_keys_through WHERE id = 1').pluck(),
  seqsOf: db.prepare<[number], number>('SELECT seq FROM event_keys WHERE dedup_key = ?').pluck(),
}));

const statements = preparedOnce((db) => ({
  saveThrough: db.prepare<[number]>('UPDATE event_keys_through SET seq = ? WHERE id = 1'),
  // Run on a connection with the event log attached (the projector's): the log's rows after `through`, up to `to`.
  index: db.prepare<[from: number, to: number]>(
    'INSERT OR IGNORE INTO event_keys (dedup_key, seq) SELECT dedup_key, seq FROM eventlog.events WHERE seq > ? AND seq <= ? ORDER BY dedup_key',
  ),
  forgetAfter: db.prepare<[number]>('DELETE FROM event_keys WHERE seq > ?'),
  deleteOfSite: db.prepare<[string]>(
    'DELETE FROM event_keys WHERE (dedup_key, seq) IN (SELECT dedup_key, seq FROM eventlog.events WHERE site_id = ?)',
  ),
}));

/** Every stored event with a seq up to this one has its key in event_keys. */
export function eventKeysThrough(db: Db): number {
  return (reads(db).through.get() as number | undefined) ?? 0;
}

/** The seqs of the indexed events whose dedup key is `dedupKey` (almost always none or one). */
export function seqsOfEventKey(db: Db, dedupKey: number): number[] {
  return reads(db).seqsOf.all(dedupKey);
}

/**
 * While the projector works through a backlog, keys are indexed in chunks of at least this many events: the keys
 * are random, so a small batch writes about one page of the index per key, while a chunk sorted by key writes each
 * page once for many keys. The writer's tail holds the chunk meanwhile (about 75 bytes per event).
 */
export const eventKeysChunk = 50_000;

/**
 * Indexes the stored events up to `reached` that are not yet (a projector batch calls it in its transaction, with
 * the event log attached): once the projector has caught up (`caughtUp`: its batch read to the log's end), or once
 * a chunk of `eventKeysChunk` events is waiting. Sorted by key, so each page of the index is written once.
 */
export function indexEventKeys(db: Db, reached: number, caughtUp: boolean): void {
  const through = eventKeysThrough(db);
  if (reached <= through) return;
  if (!caughtUp && reached - through < eventKeysChunk) return;
  statements(db).index.run(through, reached);
  statements(db).saveThrough.run(reached);
}

/**
 * At start, before the writer builds its tail: the keys of every stored event not indexed yet go into event_keys in
 * one sorted chunk (on `db`, sightline.db with the log attached), so the tail starts empty. Otherwise a large
 * unprojected backlog (events written while no server ran, or a projector far behind) would sit in the writer's
 * memory until the projector passed it.
 */
export function indexKeysAtStart(db: Db): void {
  inWriteTransaction(db, () => {
    const issued = highestSeqIssued(db);
    // In chunks: each sorted on its own, so the sort never holds the whole backlog in memory.
    for (let through = eventKeysThrough(db); through < issued; through = eventKeysThrough(db)) {
      indexEventKeys(db, Math.min(issued, through + eventKeysChunk * 2), true);
    }
  });
}

/** The event log ends before `through` (it lost its last commits): forget the keys of events that are gone. */
export function forgetEventKeysAfter(db: Db, issued: number): void {
  if (eventKeysThrough(db) <= issued) return;
  statements(db).forgetAfter.run(issued);
  statements(db).saveThrough.run(issued);
}

/** Before the site's events are deleted (a site data remover of the 'derived' phase). */
export function deleteEventKeysOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
