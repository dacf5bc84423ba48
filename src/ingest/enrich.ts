// Server-side enrichment: from a validated wire event and its request context to the row the writer stores.
import type { WireEvent } from '../event-store/wire-event.ts';
import type { GeoFacts } from './geo.ts';
import { dedupKeyOf, rawReadsCanonical, type StoredEventInput } from '../event-store/stored-event.ts';
import { describeUrl, referrerHostOf, sourceOf } from './url-parts.ts';
import type { UserAgentFacts } from './user-agent.ts';

/** What the request (or, on replay, the dead-letter row) tells about the visitor; never the IP itself. */
export interface VisitorContext {
  agent: UserAgentFacts;
  geo: GeoFacts;
  internal: boolean;
}

export interface EnrichInput {
  siteId: string;
  event: WireEvent;
  canonicalId: string;
  tsMs: number;
  revenueMinor: number | null;
  raw: string;
  visitor: VisitorContext;
  /** The collector derived anon_id (a cookieless site): raw does not hold it, so the row must be read back. */
  anonIdDerived?: boolean;
}

export function enrichEvent(input: EnrichInput): StoredEventInput {
  const { event, visitor } = input;
  const url = describeUrl(event.url);
  const referrerHost = referrerHostOf(event.referrer, url.host);
  const wireUrl = typeof event.url === 'string' ? event.url : null;
  return {
    site_id: input.siteId,
    id: input.canonicalId,
    dedup_key: dedupKeyOf(input.canonicalId),
    type: event.type,
    ts: input.tsMs,
    anon_id: event.anon_id,
    user_id: event.user_id ?? null,
    path: url.path,
    query: url.query,
    source: sourceOf(url, referrerHost),
    utm_source: url.utm_source,
    utm_medium: url.utm_medium,
    utm_campaign: url.utm_campaign,
    browser: visitor.agent.browser,
    os: visitor.agent.os,
    device_type: visitor.agent.device_type,
    country: visitor.geo.country,
    region: visitor.geo.region,
    city: visitor.geo.city,
    is_bot: visitor.agent.is_bot ? 1 : 0,
    is_internal: visitor.internal ? 1 : 0,
    revenue_minor: input.revenueMinor,
    revenue_currency: event.revenue?.currency ?? null,
    raw: input.raw,
    // A derived anon_id is not in raw (an "anon_id" found there belongs to props): the checking path stores it.
    raw_reads_canonical: !input.anonIdDerived && rawReadsCanonical(input.raw, wireUrl, url),
  };
}
