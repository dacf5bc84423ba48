// A stored event row as list-v2 and stream-v2 show it: ISO times, props parsed.
import { toIso } from '../clock.ts';
import type { EventItem } from './answers.ts';
import type { EventRow } from './queries/list-event-rows.ts';

function parseProps(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  // Ingest stores only objects; anything else would not match the published schema.
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * @example toEventItem(row) // → { id, type: 'pageview', ts: '2026-03-01T12:00:00.000Z', …, props: null }
 */
export function toEventItem(row: EventRow): EventItem {
  return {
    id: row.id,
    type: row.type,
    ts: toIso(row.ts),
    received_at: toIso(row.received_at),
    anon_id: row.anon_id,
    url: row.url,
    path: row.path,
    referrer: row.referrer,
    source: row.source,
    country: row.country,
    region: row.region,
    city: row.city,
    browser: row.browser,
    os: row.os,
    device_type: row.device_type as EventItem['device_type'],
    props: parseProps(row.props),
  };
}
