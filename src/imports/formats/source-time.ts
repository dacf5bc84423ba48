// Source timestamps as the wire format's ISO-8601 with an offset. Umami writes "YYYY-MM-DD HH:MM:SS" in UTC,
// GoatCounter RFC 3339, GA4 microseconds since the epoch.

const dateTime = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * The time as an ISO string, or undefined when it is not a date and time; without an offset it is UTC.
 * @example sourceTimeToIso('2024-01-15 10:00:00') → '2024-01-15T10:00:00.000Z'
 */
export function sourceTimeToIso(text: string): string | undefined {
  const match = dateTime.exec(text.trim());
  if (!match) return undefined;
  const [, day, time, offset] = match;
  // Milliseconds at most: the wire format's precision.
  const [clock, fraction = ''] = time!.split('.');
  const ms = Date.parse(`${day}T${clock}.${(fraction + '000').slice(0, 3)}${offset ?? 'Z'}`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** Microseconds since the epoch (a GA4 event_timestamp, as text or number) as an ISO string. */
export function microsToIso(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,19}$/.test(text)) return undefined;
  const ms = Math.floor(Number(text) / 1000);
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
