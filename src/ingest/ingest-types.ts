// The shapes the ingest pipeline and its steps share.
import type { ParsedWireEvent } from '../event-store/wire-event.ts';

export type IngestChannel = 'browser' | 's2s' | 'replay';

/** The enrichment inputs kept with a quarantined event, so a replay enriches it as the original request would. */
export interface StoredVisitorContext {
  channel: 'browser' | 's2s';
  user_agent: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  internal: boolean;
  /** The anon_id the collector derived for a cookieless visitor (the raw event has none, and the IP is not kept). */
  anon_id?: string;
}

export interface IngestRequest {
  /** The authenticated site; or, for an API key without X-Site-Id, resolved from the events' site_id. */
  siteId: string | ((bodySiteIds: string[]) => string);
  bodyText: string;
  channel: IngestChannel;
  /** The browser's address (socket or trusted X-Forwarded-For); used for geo, internal tagging and the IP limit. */
  clientIp: string | null;
  /** The browser's User-Agent header. */
  userAgent: string | null;
  /** Replay runs in reject semantics whatever SCHEMA_MODE says. */
  schemaMode?: 'reject' | 'quarantine';
  /** Replay: the visitor context stored with the dead-letter row. */
  storedVisitor?: StoredVisitorContext;
}

export interface IngestOutcome {
  accepted: number;
  /** Of the accepted events, those classified as bots: stored, but never counted in reports nor streamed. */
  bots: number;
  duplicates: number;
  quarantined: number;
  dropped: number;
}

/** One event that passed the wire check, with where it sits in the body. */
export interface CandidateEvent {
  /** "" for a single-object body, "/3" for the fourth element of an array body. */
  pointer: string;
  /** The exact JSON text of the event as received. */
  raw: string;
  object: Record<string, unknown>;
  parsed: ParsedWireEvent;
  /** The event came without anon_id and the collector derived it (a cookieless site, src/visitors/). */
  anonIdDerived?: true;
}
