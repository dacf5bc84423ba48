// A site's stored events in event-time order, a page at a time (keyset on ts then seq, over events_by_site_ts), for
// the export (src/exports/): memory stays one page whatever the site holds.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface ExportEventRow {
  seq: number;
  id: string;
  type: string;
  ts: number;
  received_at: number;
  anon_id: string;
  user_id: string | null;
  path: string | null;
  query: string | null;
  source: string;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  browser: string | null;
  os: string | null;
  device_type: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  is_bot: 0 | 1;
  is_internal: 0 | 1;
  revenue_minor: number | null;
  revenue_currency: string | null;
  raw: string;
}

export interface ExportPageParams {
  site_id: string;
  /** [from_ms, to_ms): the export's range. */
  from_ms: number;
  to_ms: number;
  /** The last row of the previous page (ts, seq), or from_ms and 0 for the first. */
  after_ts: number;
  after_seq: number;
  limit: number;
}

const statements = preparedOnce((db) => ({
  page: db.prepare<ExportPageParams, ExportEventRow>(
    `SELECT seq, id, type, ts, received_at, anon_id, user_id, path, query, source, utm_source, utm_medium, utm_campaign,
       browser, os, device_type, country, region, city, is_bot, is_internal, revenue_minor, revenue_currency, raw
     FROM events
     WHERE site_id = :site_id AND ts >= :after_ts AND ts < :to_ms AND (ts > :after_ts OR seq > :after_seq) AND ts >= :from_ms
     ORDER BY ts, seq LIMIT :limit`,
  ),
}));

export function listExportPage(db: Db, params: ExportPageParams): ExportEventRow[] {
  return statements(db).page.all(params);
}
