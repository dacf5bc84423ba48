// The part of the embedded event log ClickHouse does not hold yet (seq past its highest), for reads that must see
// every acknowledged event at once (a timeline): a user's bindings and their devices' events in that tail, in one
// read snapshot. The tail is the shipping lag, short once shipping has caught up. INDEXED BY, as the SQLite timeline
// (src/projector/queries/user-anon-ids.ts): with ANALYZE statistics the planner would walk every event of the site.
import type { Db } from '../db/open.ts';
import { preparedOnce } from '../db/statements.ts';
import type { VisitorTimelineRow } from '../projector/queries/visitor-events.ts';

/** An unshipped event's columns a timeline shows: the embedded timeline's own (never props or the user agent). */
export type UnshippedTimelineRow = VisitorTimelineRow;

const statements = preparedOnce((db) => ({
  anonIds: db.prepare<{ site_id: string; user_id: string; after_seq: number }, string>(
    'SELECT DISTINCT anon_id FROM events INDEXED BY events_by_site WHERE site_id = :site_id AND seq > :after_seq AND user_id = :user_id',
  ).pluck(),
  events: db.prepare<{ site_id: string; after_seq: number; anon_ids: string }, UnshippedTimelineRow>(
    `SELECT seq, id, type, ts, anon_id, country, city, browser, os, device_type, raw FROM events INDEXED BY events_by_site
     WHERE site_id = :site_id AND seq > :after_seq AND anon_id IN (SELECT value FROM json_each(:anon_ids))`,
  ),
}));

/**
 * The unshipped tail of one user on a site: the anon_ids its events bound to the user, and every unshipped event of
 * those and of `knownAnonIds` (the bindings ClickHouse holds).
 */
export function readUnshippedTimeline(db: Db, siteId: string, userId: string, afterSeq: number, knownAnonIds: readonly string[]): { anonIds: string[]; events: UnshippedTimelineRow[] } {
  return db.transaction(() => {
    const tailAnonIds = statements(db).anonIds.all({ site_id: siteId, user_id: userId, after_seq: afterSeq });
    const anonIds = [...new Set([...knownAnonIds, ...tailAnonIds])].sort();
    const events = anonIds.length === 0 ? [] : statements(db).events.all({ site_id: siteId, after_seq: afterSeq, anon_ids: JSON.stringify(anonIds) });
    return { anonIds, events };
  }).deferred();
}
