// The formats an import reads (CONTRACT section 11) and what every format's reader yields: one source row at a time,
// as the wire event Sightline stores plus the facts the source already knew (browser, place, bot), or why it is bad.
import type { DeviceType } from '../ingest/user-agent.ts';

export const importFormats = ['umami-csv', 'goatcounter-csv', 'ga4-bigquery', 'plausible-csv'] as const;
export type ImportFormat = (typeof importFormats)[number];

/** The formats whose rows are events (Plausible's export holds daily aggregates only). */
export const eventFormats: readonly ImportFormat[] = ['umami-csv', 'goatcounter-csv', 'ga4-bigquery'];

export function isImportFormat(text: string): text is ImportFormat {
  return (importFormats as readonly string[]).includes(text);
}

/** What the source recorded about the visitor, stored as is instead of being derived from a user agent or an IP. */
export interface SourceFacts {
  browser: string | null;
  os: string | null;
  device_type: DeviceType | null;
  is_bot: boolean;
  country: string | null;
  region: string | null;
  city: string | null;
}

/** One row of the file: its line (the header is line 1) and either the event it becomes or why it cannot. */
export type SourceRow =
  | { line: number; event: { wire: Record<string, unknown>; facts: SourceFacts } }
  | { line: number; error: string };

export interface ReaderOptions {
  siteId: string;
}

/** A format's reader: the decompressed bytes of the file in, its rows out, in file order, in constant memory. */
export type SourceReader = (input: NodeJS.ReadableStream, options: ReaderOptions) => AsyncGenerator<SourceRow>;

/**
 * An event type from a source's event name: the characters the wire format refuses become "_" (Umami and
 * GoatCounter allow spaces), a name not starting with a letter gets "e_" in front, and it is cut to 64 characters.
 * @example toEventType('Signup button') → 'Signup_button'
 */
export function toEventType(name: string): string {
  let type = name.trim().replace(/[^A-Za-z0-9_.:-]/g, '_');
  if (!/^[A-Za-z]/.test(type)) type = `e_${type}`;
  return type.slice(0, 64);
}

/** A source's device category as ours. */
export function toDeviceType(category: string | null | undefined): DeviceType | null {
  if (!category) return null;
  const lower = category.toLowerCase();
  if (lower === 'desktop' || lower === 'laptop') return 'desktop';
  if (lower === 'mobile' || lower === 'smartphone') return 'mobile';
  if (lower === 'tablet') return 'tablet';
  return 'other';
}

/** Empty text as null. */
export const orNull = (text: string | null | undefined): string | null => (text === undefined || text === null || text === '' ? null : text);
