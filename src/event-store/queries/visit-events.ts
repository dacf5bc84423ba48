// The events of one visit (a visitor's non-bot events of one traffic kind inside the visit's span, up to the seq
// the projector has reached), for moving their counts when the visit's attributes change.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface VisitEventsParams {
  site_id: string;
  anon_id: string;
  is_internal: number;
  start_ts: number;
  end_ts: number;
  /** An event to leave out (the one being projected, counted on its own). */
  except_seq: number;
  /** Only events the projector has reached: later ones are counted when it reaches them. */
  max_seq: number;
}

export interface VisitEventRow {
  seq: number;
  ts: number;
  type: string;
  path: string | null;
  query: string | null;
  revenue_minor: number | null;
  revenue_currency: string | null;
}

const statements = preparedOnce((db) => ({
  events: db.prepare<VisitEventsParams, VisitEventRow>(
    `SELECT seq, ts, type, path, query, revenue_minor, revenue_currency FROM events
      WHERE site_id = :site_id AND anon_id = :anon_id AND ts >= :start_ts AND ts <= :end_ts
        AND is_internal = :is_internal AND is_bot = 0 AND seq != :except_seq AND seq <= :max_seq`,
  ),
}));

export function listVisitEvents(db: Db, params: VisitEventsParams): VisitEventRow[] {
  return statements(db).events.all(params);
}
