// The stored columns an event list shows (list-v2, stream-v2 and a GDPR export): the read model's listings and the
// projector's reads of one visitor's events select the same ones.

export interface EventRow {
  seq: number;
  id: string;
  type: string;
  ts: number;
  received_at: number;
  anon_id: string;
  path: string | null;
  source: string;
  country: string | null;
  region: string | null;
  city: string | null;
  browser: string | null;
  os: string | null;
  device_type: string | null;
  /** The text received: url, referrer and props are read from it (src/event-store/wire-fields.ts). */
  raw: string;
}

export const eventRowColumns = `e.seq, e.id, e.type, e.ts, e.received_at, e.anon_id, e.path, e.source, e.country, e.region,
  e.city, e.browser, e.os, e.device_type, e.raw`;
