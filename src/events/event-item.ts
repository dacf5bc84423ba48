// A stored event row as list-v2 and stream-v2 show it: ISO times; url, referrer and props as the raw text has them.
import { toIso } from '../clock.ts';
import { wireFieldsOf } from '../event-store/wire-fields.ts';
import type { EventItem } from './answers.ts';
import type { EventRow } from '../event-store/queries/list-event-rows.ts';

/**
 * @example toEventItem(row) // → { id, type: 'pageview', ts: '2026-03-01T12:00:00.000Z', …, props: null }
 */
export function toEventItem(row: EventRow): EventItem {
  const wire = wireFieldsOf(row.raw);
  return {
    id: row.id,
    type: row.type,
    ts: toIso(row.ts),
    received_at: toIso(row.received_at),
    anon_id: row.anon_id,
    url: wire.url,
    path: row.path,
    referrer: wire.referrer,
    source: row.source,
    country: row.country,
    region: row.region,
    city: row.city,
    browser: row.browser,
    os: row.os,
    device_type: row.device_type as EventItem['device_type'],
    props: wire.props,
  };
}
