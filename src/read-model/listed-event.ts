// A stored event's row as every implementation's event lists show it (ListedEvent): one mapping from the stored
// columns (src/event-store/queries/event-row-columns.ts), whichever store the row came from.
import type { EventRow } from '../event-store/queries/event-row-columns.ts';
import type { ListedEvent } from './event-questions.ts';

export function toListedEvent(row: EventRow, siteId: string): ListedEvent {
  return {
    position: row.seq,
    siteId,
    id: row.id,
    type: row.type,
    tsMs: row.ts,
    receivedAtMs: row.received_at,
    anonId: row.anon_id,
    path: row.path,
    source: row.source,
    country: row.country,
    region: row.region,
    city: row.city,
    browser: row.browser,
    os: row.os,
    deviceType: row.device_type as ListedEvent['deviceType'],
    raw: row.raw,
  };
}
