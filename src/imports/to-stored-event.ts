// A source row's wire event through the same checks as ingest (the wire schema), then enrichment, with the source's
// own facts (browser, place, bot) where ingest would derive them from a user agent and an IP address.
import { parseWireEvent, maxFutureMs } from '../event-store/wire-event.ts';
import type { StoredEventInput } from '../event-store/stored-event.ts';
import { enrichEvent } from '../ingest/enrich.ts';
import type { SourceFacts } from './import-formats.ts';

export type ImportedEvent = { ok: true; stored: StoredEventInput } | { ok: false; message: string };

/**
 * Imported events may be older than ingest's 400 days (history is the point of an import), never in the future.
 * @example toStoredEvent({ id, site_id, anon_id, ts, type: 'pageview', url }, facts, Date.now())
 */
export function toStoredEvent(wire: Record<string, unknown>, facts: SourceFacts, nowMs: number): ImportedEvent {
  const raw = JSON.stringify(wire);
  const tsMs = typeof wire.ts === 'string' ? Date.parse(wire.ts) : Number.NaN;
  if (tsMs > nowMs + maxFutureMs) return { ok: false, message: 'the event is in the future' };
  // Judged as of its own time: the age bound does not apply, every other check does.
  const parsed = parseWireEvent(wire, Number.isNaN(tsMs) ? nowMs : tsMs);
  if (!parsed.ok) return { ok: false, message: parsed.details.map((detail) => `${detail.path.slice(1) || 'event'} ${detail.message}`).join('; ') };
  const { event, canonicalId, revenueMinor } = parsed.value;
  const stored = enrichEvent({
    siteId: event.site_id,
    event,
    canonicalId,
    tsMs: parsed.value.tsMs,
    revenueMinor,
    raw,
    visitor: {
      agent: { browser: facts.browser, os: facts.os, device_type: facts.device_type, is_bot: facts.is_bot },
      geo: { country: facts.country, region: facts.region, city: facts.city },
      internal: false,
    },
  });
  return { ok: true, stored };
}
