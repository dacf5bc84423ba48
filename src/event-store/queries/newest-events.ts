// The freshness of the event log: the newest seq overall, and the newest commit time of a scope's events, in all
// or up to a seq (what the projector has counted). Both read the last entry of events_by_site (site_id, then seq: the rowid).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  newestSeq: db.prepare<[], number | null>('SELECT max(seq) FROM events').pluck(),
  // AUTOINCREMENT's counter: the highest seq ever handed out, deleted rows included.
  highestIssued: db.prepare<[], number | null>("SELECT seq FROM sqlite_sequence WHERE name = 'events'").pluck(),
  newestReceivedAt: db.prepare<{ site_id: string; upto_seq: number }, number>(
    'SELECT received_at FROM events WHERE site_id = :site_id AND seq <= :upto_seq ORDER BY seq DESC LIMIT 1',
  ).pluck(),
}));

/** The seq of the newest stored event (0 when there is none). */
export function newestEventSeq(db: Db): number {
  return (statements(db).newestSeq.get() as number | null) ?? 0;
}

/** The highest seq the event log has ever handed out (0 when none): it only goes back when the log loses commits. */
export function highestSeqIssued(db: Db): number {
  return (statements(db).highestIssued.get() as number | null | undefined) ?? 0;
}

/**
 * The newest commit time (epoch ms) of the sites' events with seq <= uptoSeq (all of them by default), or null
 * when they have none.
 */
export function newestReceivedAt(db: Db, siteIds: readonly string[], uptoSeq = Number.MAX_SAFE_INTEGER): number | null {
  let newest: number | null = null;
  for (const siteId of siteIds) {
    const value = statements(db).newestReceivedAt.get({ site_id: siteId, upto_seq: uptoSeq }) as number | undefined;
    if (value !== undefined && (newest === null || value > newest)) newest = value;
  }
  return newest;
}
