// Who the visitor is for enrichment: the browser's own agent and address on /events, the event's context on
// /s2s/events, or what a dead-letter row kept (on replay). The IP is looked up, never kept.
import type { VisitorContext } from './enrich.ts';
import type { GeoLookup } from './geo.ts';
import type { CandidateEvent, IngestRequest, StoredVisitorContext } from './ingest-types.ts';
import type { InternalIpMatcher } from './internal-ips.ts';
import { describeUserAgent } from './user-agent.ts';

export interface VisitorLookups {
  geo: GeoLookup;
  internalIps: InternalIpMatcher;
}

export function visitorOf(lookups: VisitorLookups, request: IngestRequest, candidate: CandidateEvent): { visitor: VisitorContext; stored: StoredVisitorContext } {
  if (request.storedVisitor) {
    const stored = request.storedVisitor;
    return {
      visitor: { agent: describeUserAgent(stored.user_agent), geo: { country: stored.country, region: stored.region, city: stored.city }, internal: stored.internal },
      stored,
    };
  }
  const event = candidate.parsed.event;
  const isServer = request.channel === 's2s';
  const userAgent = isServer ? (event.context?.user_agent ?? null) : request.userAgent;
  const ip = isServer ? (event.context?.ip ?? null) : request.clientIp;
  const geo = lookups.geo.lookup(ip);
  const internal = lookups.internalIps.isInternal(ip) || (isServer && event.internal === true);
  return {
    visitor: { agent: describeUserAgent(userAgent), geo, internal },
    stored: { channel: isServer ? 's2s' : 'browser', user_agent: userAgent, ...geo, internal },
  };
}
