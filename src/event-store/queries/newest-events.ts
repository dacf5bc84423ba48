// What a report's snapshot is: the newest event seq overall, and the newest commit time of the scope's sites.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  newestSeq: db.prepare<[], number | null>('SELECT max(seq) FROM events').pluck(),
  newestReceivedAt: db.prepare<[string], number>('SELECT max_received_at FROM report_sites WHERE site_id = ?').pluck(),
}));

/** The seq of the newest stored event (0 when there is none). */
export function newestEventSeq(db: Db): number {
  return (statements(db).newestSeq.get() as number | null) ?? 0;
}

/** The newest commit time (epoch ms) of the sites' events, or null when they have none. */
export function newestReceivedAt(db: Db, siteIds: readonly string[]): number | null {
  let newest: number | null = null;
  for (const siteId of siteIds) {
    const value = statements(db).newestReceivedAt.get(siteId) as number | undefined;
    if (value !== undefined && (newest === null || value > newest)) newest = value;
  }
  return newest;
}
