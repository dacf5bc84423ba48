// The shape of an event as the writer stores it: the raw text received, plus what enrichment derived from it that
// reads filter or group by (url, referrer and props stay in raw: src/event-store/wire-fields.ts reads them).

export interface StoredEventInput {
  site_id: string;
  id: string;
  dedup_key: number;
  type: string;
  ts: number;
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

export interface StoredEvent extends StoredEventInput {
  seq: number;
  received_at: number;
}

/** The first 52 bits of a UUID as a safe integer: random for v4, time-ordered for v7, verified against the full id. */
export function dedupKeyOf(canonicalId: string): number {
  return parseInt(canonicalId.slice(0, 8) + canonicalId.slice(9, 13) + canonicalId.slice(14, 15), 16);
}

/** A stored event as the projector reads it: every column but the raw text and the dedup key. */
export type LoggedEvent = Omit<StoredEvent, 'raw' | 'dedup_key'>;
