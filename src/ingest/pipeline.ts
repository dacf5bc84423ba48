// The one ingest pipeline, used by POST /events, POST /s2s/events and DLQ replay: a list of named steps, each
// passing events on or dropping them with a reason from a closed set, and every outcome counted for /metrics.
// A request is all-or-nothing: any refusal refuses the whole batch and stores nothing.
import type { Clock } from '../clock.ts';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import { parseJsonText } from '../http/body.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import type { TrackingPlan } from '../plan/tracking-plan.ts';
import type { Random } from '../clock.ts';
import { enrichEvent, type VisitorContext } from './enrich.ts';
import type { GeoLookup } from './geo.ts';
import type { InternalIpMatcher } from './internal-ips.ts';
import type { TokenBuckets } from './rate-limit.ts';
import { splitJsonArray } from './split-json-array.ts';
import { describeUserAgent } from './user-agent.ts';
import { parseWireEvent, type ParsedWireEvent } from './wire.ts';
import type { DlqInput, WriteQueue } from './write-queue.ts';
import type { StoredEventInput } from './stored-event.ts';

export const maxEventsPerRequest = 500;

/** Why an acknowledged event was not stored: the closed set of drop reasons. */
export type DropReason = 'consent_denied';

export type IngestChannel = 'browser' | 's2s' | 'replay';

/** The enrichment inputs kept with a quarantined event, so a replay enriches it as the original request would. */
export interface StoredVisitorContext {
  channel: 'browser' | 's2s';
  user_agent: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  internal: boolean;
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
  duplicates: number;
  quarantined: number;
  dropped: number;
}

export interface IngestPipelineDeps {
  clock: Clock;
  random: Random;
  metrics: AppMetrics;
  writeQueue: WriteQueue;
  plan: TrackingPlan | undefined;
  schemaMode: 'reject' | 'quarantine';
  geo: GeoLookup;
  internalIps: InternalIpMatcher;
  siteLimits: TokenBuckets;
  ipLimits: TokenBuckets;
}

interface CandidateEvent {
  /** "" for a single-object body, "/3" for the fourth element of an array body. */
  pointer: string;
  raw: string;
  object: Record<string, unknown>;
  parsed: ParsedWireEvent;
}

export interface IngestPipeline {
  ingest(request: IngestRequest): Promise<IngestOutcome>;
}

/** Body → array of (raw text, parsed value); 1 to 500 objects. */
function splitBody(bodyText: string): { raw: string; value: unknown; pointer: string }[] {
  const document = parseJsonText(bodyText);
  if (!Array.isArray(document)) return [{ raw: bodyText.trim(), value: document, pointer: '' }];
  if (document.length === 0 || document.length > maxEventsPerRequest) {
    throw ApiError.invalidPayload([{ path: '', message: `must hold 1 to ${maxEventsPerRequest} events` }]);
  }
  const texts = splitJsonArray(bodyText);
  return document.map((value, index) => ({ raw: texts[index] ?? JSON.stringify(value), value, pointer: `/${index}` }));
}

export function createIngestPipeline(deps: IngestPipelineDeps): IngestPipeline {
  const count = (outcome: string, amount = 1) => {
    if (amount > 0) deps.metrics.ingestEvents.inc({ outcome }, amount);
  };

  function validateWire(request: IngestRequest, items: ReturnType<typeof splitBody>): { siteId: string; candidates: CandidateEvent[] } {
    const now = deps.clock.now();
    const details: ErrorDetail[] = [];
    const candidates: CandidateEvent[] = [];
    const siteId =
      typeof request.siteId === 'string'
        ? request.siteId
        : request.siteId(items.map((item) => (item.value as { site_id?: unknown } | null)?.site_id).filter((id): id is string => typeof id === 'string'));
    items.forEach((item) => {
      const result = parseWireEvent(item.value, now, item.pointer);
      if (!result.ok) {
        details.push(...result.details);
      } else if (result.value.event.site_id !== siteId) {
        details.push({ path: `${item.pointer}/site_id`, message: 'must be the authenticated site' });
      } else {
        candidates.push({ pointer: item.pointer, raw: item.raw, object: item.value as Record<string, unknown>, parsed: result.value });
      }
    });
    if (details.length > 0) throw ApiError.invalidPayload(details, 'One or more events are invalid; nothing was stored');
    return { siteId, candidates };
  }

  function gateConsent(candidates: CandidateEvent[]): { kept: CandidateEvent[]; dropped: number } {
    const kept = candidates.filter((candidate) => candidate.parsed.event.consent?.analytics !== false);
    return { kept, dropped: candidates.length - kept.length };
  }

  function gateRateLimit(request: IngestRequest, siteId: string, eventCount: number): void {
    if (request.channel === 'browser' && request.clientIp) {
      const byIp = deps.ipLimits.take(request.clientIp, 1);
      if (!byIp.ok) throw rateLimited(byIp.retryAfterSeconds);
    }
    if (eventCount === 0) return;
    const bySite = deps.siteLimits.take(siteId, eventCount);
    if (!bySite.ok) throw rateLimited(bySite.retryAfterSeconds);
  }

  /** A repeat of an id inside the same request is a duplicate; repeats across requests are caught by the writer. */
  function gateDuplicatesInBatch(candidates: CandidateEvent[]): { kept: CandidateEvent[]; duplicates: number } {
    const seen = new Set<string>();
    const kept = candidates.filter((candidate) => {
      if (seen.has(candidate.parsed.canonicalId)) return false;
      seen.add(candidate.parsed.canonicalId);
      return true;
    });
    return { kept, duplicates: candidates.length - kept.length };
  }

  function validatePlan(request: IngestRequest, candidates: CandidateEvent[]): { kept: CandidateEvent[]; failed: { candidate: CandidateEvent; details: ErrorDetail[] }[] } {
    if (!deps.plan) return { kept: candidates, failed: [] };
    const kept: CandidateEvent[] = [];
    const failed: { candidate: CandidateEvent; details: ErrorDetail[] }[] = [];
    for (const candidate of candidates) {
      const details = deps.plan.validate(candidate.object, candidate.pointer);
      if (details.length === 0) kept.push(candidate);
      else failed.push({ candidate, details });
    }
    const mode = request.schemaMode ?? deps.schemaMode;
    if (failed.length > 0 && mode === 'reject') {
      throw new ApiError(400, 'schema_validation_failed', 'One or more events do not match the tracking plan; nothing was stored', failed.flatMap((item) => item.details));
    }
    return { kept, failed };
  }

  function visitorOf(request: IngestRequest, candidate: CandidateEvent): { visitor: VisitorContext; stored: StoredVisitorContext } {
    if (request.storedVisitor) {
      const stored = request.storedVisitor;
      return {
        visitor: { agent: describeUserAgent(stored.user_agent), geo: { country: stored.country, region: stored.region, city: stored.city }, internal: stored.internal },
        stored,
      };
    }
    const event = candidate.parsed.event;
    const isServer = request.channel === 's2s';
    // Browsers' own user agent and address count on /events; on /s2s only the event's context does.
    const userAgent = isServer ? (event.context?.user_agent ?? null) : request.userAgent;
    const ip = isServer ? (event.context?.ip ?? null) : request.clientIp;
    const geo = deps.geo.lookup(ip);
    const internal = deps.internalIps.isInternal(ip) || (isServer && event.internal === true);
    return {
      visitor: { agent: describeUserAgent(userAgent), geo, internal },
      stored: { channel: isServer ? 's2s' : 'browser', user_agent: userAgent, ...geo, internal },
    };
  }

  function toStored(request: IngestRequest, siteId: string, candidate: CandidateEvent): StoredEventInput {
    const { parsed } = candidate;
    return enrichEvent({
      siteId,
      event: parsed.event,
      canonicalId: parsed.canonicalId,
      tsMs: parsed.tsMs,
      revenueMinor: parsed.revenueMinor,
      raw: candidate.raw,
      visitor: visitorOf(request, candidate).visitor,
    });
  }

  function toDeadLetter(request: IngestRequest, siteId: string, candidate: CandidateEvent, details: ErrorDetail[]): DlqInput {
    // The row holds one event: its error paths point into that event, without the array index.
    const unprefixed = details.map((detail) => ({ ...detail, path: detail.path.slice(candidate.pointer.length) }));
    return {
      id: deps.random.uuid(),
      site_id: siteId,
      payload: candidate.raw,
      error: JSON.stringify(unprefixed),
      context: JSON.stringify(visitorOf(request, candidate).stored),
    };
  }

  return {
    async ingest(request) {
      let siteId: string;
      let candidates: CandidateEvent[];
      let items: ReturnType<typeof splitBody> | undefined;
      try {
        items = splitBody(request.bodyText);
        ({ siteId, candidates } = validateWire(request, items));
      } catch (error) {
        // Every event of a refused batch counts, as for the other refusals; a body that holds no events counts once.
        count('rejected_invalid', items?.length ?? 1);
        throw error;
      }
      const consent = gateConsent(candidates);
      try {
        gateRateLimit(request, siteId, consent.kept.length);
      } catch (error) {
        count('rejected_rate_limit', candidates.length);
        throw error;
      }
      const unique = gateDuplicatesInBatch(consent.kept);
      let plan: ReturnType<typeof validatePlan>;
      try {
        plan = validatePlan(request, unique.kept);
      } catch (error) {
        count('rejected_schema', candidates.length);
        throw error;
      }
      const batch = {
        events: plan.kept.map((candidate) => toStored(request, siteId, candidate)),
        quarantined: plan.failed.map((item) => toDeadLetter(request, siteId, item.candidate, item.details)),
      };
      let written;
      try {
        written = await deps.writeQueue.submit(batch);
      } catch (error) {
        count('rejected_overloaded', candidates.length);
        throw error;
      }
      const outcome: IngestOutcome = {
        accepted: written.accepted,
        duplicates: unique.duplicates + written.duplicates,
        quarantined: written.quarantined,
        dropped: consent.dropped,
      };
      count('accepted', outcome.accepted);
      count('duplicate', outcome.duplicates);
      count('quarantined', outcome.quarantined);
      count('dropped_consent', outcome.dropped);
      return outcome;
    },
  };
}

function rateLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'rate_limited', 'Too many events; retry later', undefined, { 'retry-after': String(retryAfterSeconds) });
}
