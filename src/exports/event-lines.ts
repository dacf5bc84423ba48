// One stored event as an export line: ndjson ({ ...derived fields, raw } with raw spliced in verbatim, so the export
// round-trips the bytes received) or csv (the derived fields, RFC 4180 quoting).
import { toIso } from '../clock.ts';
import type { ExportEventRow } from '../event-store/queries/export-events.ts';

/** The derived fields, in the order both formats write them. */
export const exportedFields = [
  'id', 'type', 'ts', 'received_at', 'anon_id', 'user_id', 'path', 'query', 'source', 'utm_source', 'utm_medium', 'utm_campaign',
  'browser', 'os', 'device_type', 'country', 'region', 'city', 'is_bot', 'is_internal', 'revenue_minor', 'revenue_currency',
] as const;

type Exported = Record<(typeof exportedFields)[number], string | number | boolean | null>;

function derivedOf(row: ExportEventRow): Exported {
  return {
    id: row.id, type: row.type, ts: toIso(row.ts), received_at: toIso(row.received_at), anon_id: row.anon_id, user_id: row.user_id,
    path: row.path, query: row.query, source: row.source, utm_source: row.utm_source, utm_medium: row.utm_medium,
    utm_campaign: row.utm_campaign, browser: row.browser, os: row.os, device_type: row.device_type, country: row.country,
    region: row.region, city: row.city, is_bot: row.is_bot === 1, is_internal: row.is_internal === 1,
    revenue_minor: row.revenue_minor, revenue_currency: row.revenue_currency,
  };
}

/** @example toNdjsonLine(row) → '{"id":"…",…,"raw":{"id":"…",…}}\n' */
export function toNdjsonLine(row: ExportEventRow): string {
  const derived = JSON.stringify(derivedOf(row));
  return `${derived.slice(0, -1)},"raw":${row.raw}}\n`;
}

function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvHeader = `${exportedFields.join(',')}\n`;

export function toCsvLine(row: ExportEventRow): string {
  const derived = derivedOf(row);
  return `${exportedFields.map((field) => csvField(derived[field])).join(',')}\n`;
}
