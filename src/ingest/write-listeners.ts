// Domains that keep aggregates (reports) register here; the writer calls them inside the transaction that stores
// the events, so aggregates commit or roll back with the events they count (STYLE rule 8).
import type { Db } from '../db/open.ts';
import type { SessionRow } from '../projector/queries/visit-rows.ts';
import type { StoredEvent } from '../event-store/stored-event.ts';

export interface WriteListener {
  name: string;
  /** A new event row (bots included: listeners decide what they count). */
  onEventStored?(db: Db, event: StoredEvent): void;
  /** Visits replaced by `added` (an event created, extended or merged visits). */
  onSessionsChanged?(db: Db, removed: readonly SessionRow[], added: SessionRow): void;
  /** After one request's batch: `stored` is false when its savepoint rolled back (forget what it brought). */
  onBatchEnd?(db: Db, stored: boolean): void;
  /** Last step inside the group transaction, before COMMIT: write what was accumulated over the group. */
  beforeCommit?(db: Db): void;
  /**
   * Deferred upkeep (e.g. folding staged rollup rows), run by the writer between group commits: a bounded slice
   * per call, written through `inTransaction` (its own write transaction). Returns true when more remains.
   */
  onIdle?(db: Db, inTransaction: <T>(work: () => T) => T): boolean;
}

const listeners: WriteListener[] = [];

export function registerWriteListener(listener: WriteListener): void {
  if (!listeners.some((existing) => existing.name === listener.name)) listeners.push(listener);
}

export function writeListeners(): readonly WriteListener[] {
  return listeners;
}
