// A report reads everything it needs in one read transaction: one consistent snapshot of events and rollups
// while the writer keeps committing (WAL readers see the database as of their first read).
import type { Db } from '../db/open.ts';

export function inSnapshot<T>(db: Db, work: () => T): T {
  return db.transaction(work).deferred();
}
