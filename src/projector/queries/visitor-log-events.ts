// Every stored event of one visitor (an anon_id of a site), whatever its type or traffic kind, bots included: the
// visitor index up to the projector's position and the event log's tail past it. A GDPR export reads them, a GDPR
// deletion finds what to delete through them (src/gdpr/), and the retention purge finds the index rows of the events
// it deletes (src/projector/retention-purge.ts). INDEXED BY: the tail is read through events_by_site from the position
// on, never the site's whole log.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import { type EventRow, eventRowColumns } from '../../event-store/queries/event-row-columns.ts';

const visitorNumber = '(SELECT vid FROM report_visitors WHERE site_id = :site_id AND anon_id = :anon_id)';
const tailStart = '(SELECT position FROM projector_state WHERE id = 1)';

export interface VisitorLogParams {
  site_id: string;
  anon_id: string;
}

/** What a GDPR export shows of an event: the columns an event list shows, who it names and how it was classed. */
export interface VisitorLogEventRow extends EventRow {
  user_id: string | null;
  is_bot: number;
  is_internal: number;
}

const columns = `${eventRowColumns}, e.user_id, e.is_bot, e.is_internal`;

const both = (selected: string) => `SELECT ${selected} FROM visitor_events ve JOIN events e ON e.seq = ve.seq
     WHERE ve.vid = ${visitorNumber} AND e.site_id = :site_id AND e.anon_id = :anon_id
  UNION ALL
  SELECT ${selected} FROM events e INDEXED BY events_by_site
     WHERE e.site_id = :site_id AND e.seq > ${tailStart} AND e.anon_id = :anon_id`;

/** Exported for the query-plan test. */
export const visitorLogEventsSql = `SELECT * FROM (${both(columns)}) ORDER BY ts, seq LIMIT :limit`;

const statements = preparedOnce((db) => ({
  events: db.prepare<VisitorLogParams & { limit: number }, VisitorLogEventRow>(visitorLogEventsSql),
  seqs: db.prepare<VisitorLogParams, number>(both('e.seq')).pluck(),
  // Bindings the projector has not made yet: the tail's events naming a user.
  tailBindings: db.prepare<VisitorLogParams, string>(
    `SELECT DISTINCT user_id FROM events e INDEXED BY events_by_site
      WHERE e.site_id = :site_id AND e.seq > ${tailStart} AND e.anon_id = :anon_id AND e.user_id IS NOT NULL`,
  ).pluck(),
}));

/** The visitor's events in (ts, seq) order, at most `limit` (-1: all). */
export function listVisitorLogEvents(db: Db, params: VisitorLogParams, limit: number): VisitorLogEventRow[] {
  return statements(db).events.all({ ...params, limit });
}

/** The seqs of every event of the visitor. */
export function listVisitorLogSeqs(db: Db, params: VisitorLogParams): number[] {
  return statements(db).seqs.all(params);
}

/** The user_ids that the visitor's unprojected events name. */
export function listTailUserIds(db: Db, params: VisitorLogParams): string[] {
  return statements(db).tailBindings.all(params);
}
