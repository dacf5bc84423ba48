// Purchases (events of type purchase) of a set of sites in a time span, oldest first, for attribution: bots and
// internal traffic left out, bounded by the projector's position so their visits are derived already.
import type { Db } from '../../../db/open.ts';
import { preparedOnce } from '../../../db/statements.ts';

export interface PurchaseEventsParams {
  /** JSON array of site ids. */
  site_ids: string;
  start_ms: number;
  /** Inclusive. */
  end_ms: number;
  max_seq: number;
  /** The (ts, seq) of the last purchase already read; (-1, -1) before the first. */
  after_ts: number;
  after_seq: number;
  /** One event id (lower case), or null for every purchase. */
  event_id: string | null;
  limit: number;
}

export interface PurchaseEventRow {
  seq: number;
  id: string;
  site_id: string;
  anon_id: string;
  user_id: string | null;
  ts: number;
  revenue_minor: number | null;
  revenue_currency: string | null;
}

const statements = preparedOnce((db) => ({
  page: db.prepare<PurchaseEventsParams, PurchaseEventRow>(
    `SELECT seq, id, site_id, anon_id, user_id, ts, revenue_minor, revenue_currency FROM events
      WHERE site_id IN (SELECT value FROM json_each(:site_ids)) AND ts BETWEEN :start_ms AND :end_ms
        AND type = 'purchase' AND is_bot = 0 AND is_internal = 0 AND seq <= :max_seq
        AND (ts, seq) > (:after_ts, :after_seq) AND (:event_id IS NULL OR id = :event_id)
      ORDER BY ts, seq LIMIT :limit`,
  ),
}));

/** @example listPurchaseEvents(db, { site_ids: '["shop"]', start_ms, end_ms, max_seq, after_ts: -1, after_seq: -1, event_id: null, limit: 100 }) */
export function listPurchaseEvents(db: Db, params: PurchaseEventsParams): PurchaseEventRow[] {
  return statements(db).page.all(params);
}
