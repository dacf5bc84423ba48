// A stored event as list-v2 and stream-v2 show it: ISO times; url, referrer and props as the raw text has them.
import { toIso } from '../clock.ts';
import { wireFieldsOf } from '../event-store/wire-fields.ts';
import type { ListedEvent } from '../read-model/event-questions.ts';
import type { EventItem } from './answers.ts';

/**
 * @example toEventItem(event) // → { id, type: 'pageview', ts: '2026-03-01T12:00:00.000Z', …, props: null }
 */
export function toEventItem(event: ListedEvent): EventItem {
  const wire = wireFieldsOf(event.raw);
  return {
    id: event.id,
    type: event.type,
    ts: toIso(event.tsMs),
    received_at: toIso(event.receivedAtMs),
    anon_id: event.anonId,
    url: wire.url,
    path: event.path,
    referrer: wire.referrer,
    source: event.source,
    country: event.country,
    region: event.region,
    city: event.city,
    browser: event.browser,
    os: event.os,
    device_type: event.deviceType,
    props: wire.props,
  };
}
