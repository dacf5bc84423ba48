// The projector's input: stored events after its position, in ingest order.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';
import type { LoggedEvent } from '../stored-event.ts';

const statements = preparedOnce((db) => ({
  after: db.prepare<{ after_seq: number; limit: number }, LoggedEvent>(
    `SELECT seq, site_id, id, type, ts, received_at, anon_id, user_id, path, query, source, utm_source, utm_medium,
       utm_campaign, browser, os, device_type, country, region, city, is_bot, is_internal, revenue_minor, revenue_currency
     FROM events WHERE seq > :after_seq ORDER BY seq LIMIT :limit`,
  ),
}));

/** At most `limit` events with seq > afterSeq, oldest first. */
export function listEventsAfter(db: Db, afterSeq: number, limit: number): LoggedEvent[] {
  return statements(db).after.all({ after_seq: afterSeq, limit });
}
