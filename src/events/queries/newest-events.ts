// The newest stored event: overall (where a stream without a cursor starts) and per site (the freshness watermark).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

const statements = preparedOnce((db) => ({
  newestSeq: db.prepare<[], number | null>('SELECT max(seq) FROM events').pluck(),
  // received_at is the commit time and commits run one after another, so the site's last seq carries its newest.
  newestReceivedAt: db.prepare<[string], number>('SELECT received_at FROM events WHERE site_id = ? ORDER BY seq DESC LIMIT 1').pluck(),
}));

/** The seq of the newest committed event of any site (0 when there is none). */
export function findNewestSeq(db: Db): number {
  return (statements(db).newestSeq.get() as number | null) ?? 0;
}

/** The commit time (epoch ms) of the newest event of the sites, or null when they have none. */
export function findNewestReceivedAt(db: Db, siteIds: readonly string[]): number | null {
  let newest: number | null = null;
  for (const siteId of siteIds) {
    const value = statements(db).newestReceivedAt.get(siteId) as number | undefined;
    if (value !== undefined && (newest === null || value > newest)) newest = value;
  }
  return newest;
}
