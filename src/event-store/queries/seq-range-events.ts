// A site's events in a range of seqs (an import's stored batch, src/imports/): their days, their visitors, and
// deleting them. Every statement is bounded to the site.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface SeqRange {
  site_id: string;
  first_seq: number;
  last_seq: number;
}

const statements = preparedOnce((db) => ({
  days: db.prepare<SeqRange, number>('SELECT DISTINCT ts / 86400000 FROM events WHERE site_id = :site_id AND seq BETWEEN :first_seq AND :last_seq').pluck(),
  anonIds: db.prepare<SeqRange, string>('SELECT DISTINCT anon_id FROM events WHERE site_id = :site_id AND seq BETWEEN :first_seq AND :last_seq').pluck(),
  delete: db.prepare<SeqRange>('DELETE FROM events WHERE site_id = :site_id AND seq BETWEEN :first_seq AND :last_seq'),
}));

/** The UTC days (days since the epoch) of the range's events. */
export function daysInSeqRange(db: Db, range: SeqRange): number[] {
  return statements(db).days.all(range);
}

export function anonIdsInSeqRange(db: Db, range: SeqRange): string[] {
  return statements(db).anonIds.all(range);
}

/** Returns how many events it deleted. */
export function deleteEventsInSeqRange(db: Db, range: SeqRange): number {
  return statements(db).delete.run(range).changes;
}
