// The projected events on a path of one site and day range, with their visitor numbers: what the path and page
// visitor sets were built from (the repair of schema version 19, src/projector/repair-path-visitors.ts).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface PathEventRow {
  ts: number;
  type: string;
  path: string;
  query: string | null;
  is_internal: 0 | 1;
  vid: number;
}

export interface PathEventsParams {
  site_id: string;
  start_ms: number;
  end_ms: number;
  /** The projector's position: only events it has counted. */
  max_seq: number;
}

const statements = preparedOnce((db) => ({
  // Sites with path values: the only ones with path visitor sets.
  sites: db.prepare<[], string>('SELECT DISTINCT site_id FROM report_values WHERE dim = 9 ORDER BY site_id').pluck(),
  // INDEXED BY: the (site_id, ts) range, never the site's whole log. event_visitors holds every projected event of
  // an existing site (bots too: they are left out here, as from the rollups).
  events: db.prepare<PathEventsParams, PathEventRow>(
    `SELECT e.ts, e.type, e.path, e.query, e.is_internal, v.vid FROM events e INDEXED BY events_by_site_ts
       JOIN event_visitors v ON v.seq = e.seq
      WHERE e.site_id = :site_id AND e.ts >= :start_ms AND e.ts < :end_ms AND e.seq <= :max_seq AND e.is_bot = 0 AND e.path IS NOT NULL`,
  ),
  first: db.prepare<[string], number>('SELECT min(ts) FROM events WHERE site_id = ?').pluck(),
  last: db.prepare<[string], number>('SELECT max(ts) FROM events WHERE site_id = ?').pluck(),
}));

export function listSitesWithPaths(db: Db): string[] {
  return statements(db).sites.all();
}

export function listPathEvents(db: Db, params: PathEventsParams): PathEventRow[] {
  return statements(db).events.all(params);
}

/** The times of the site's oldest and newest stored events, or undefined when it has none. */
export function eventTimeSpan(db: Db, siteId: string): { first: number; last: number } | undefined {
  const first = statements(db).first.get(siteId);
  const last = statements(db).last.get(siteId);
  return first === null || first === undefined || last === null || last === undefined ? undefined : { first, last };
}
