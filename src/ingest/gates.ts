// The gates between the wire check and enrichment, in order. Each passes events on, sets some aside with a reason
// from a closed set, or refuses the whole request (it throws, and the pipeline counts the refusal).
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import type { TrackingPlan } from '../plan/tracking-plan.ts';
import type { CandidateEvent, IngestRequest } from './ingest-types.ts';
import type { TokenBuckets } from './rate-limit.ts';

/** Why an acknowledged event is not stored as an event: the closed set. */
export type SetAsideReason = 'consent_denied' | 'duplicate_in_request' | 'quarantined';

export interface SetAside {
  candidate: CandidateEvent;
  reason: SetAsideReason;
  /** Why a quarantined event failed the plan. */
  details?: ErrorDetail[];
}

export interface GateResult {
  kept: CandidateEvent[];
  setAside: SetAside[];
}

export interface GateInput {
  request: IngestRequest;
  siteId: string;
  candidates: CandidateEvent[];
}

export interface Gate {
  name: 'consent' | 'rate_limit' | 'dedup_in_request' | 'tracking_plan';
  /** The /metrics outcome of a request this gate refuses. */
  refusalOutcome?: 'rejected_rate_limit' | 'rejected_schema';
  run(input: GateInput): GateResult;
}

export interface GateDeps {
  plan: TrackingPlan | undefined;
  schemaMode: 'reject' | 'quarantine';
  siteLimits: TokenBuckets;
  ipLimits: TokenBuckets;
}

function rateLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'rate_limited', 'Too many events; retry later', undefined, { 'retry-after': String(retryAfterSeconds) });
}

/** consent.analytics false: acknowledged, never stored. */
const consent: Gate = {
  name: 'consent',
  run: ({ candidates }) => {
    const kept: CandidateEvent[] = [];
    const setAside: SetAside[] = [];
    for (const candidate of candidates) {
      if (candidate.parsed.event.consent?.analytics === false) setAside.push({ candidate, reason: 'consent_denied' });
      else kept.push(candidate);
    }
    return { kept, setAside };
  },
};

/** Per client IP (browsers' requests) and per site (events), after consent so refused consent costs nothing. */
function rateLimit(deps: GateDeps): Gate {
  return {
    name: 'rate_limit',
    refusalOutcome: 'rejected_rate_limit',
    run: ({ request, siteId, candidates }) => {
      if (request.channel === 'browser' && request.clientIp) {
        const byIp = deps.ipLimits.take(request.clientIp, 1);
        if (!byIp.ok) throw rateLimited(byIp.retryAfterSeconds);
      }
      if (candidates.length > 0) {
        const bySite = deps.siteLimits.take(siteId, candidates.length);
        if (!bySite.ok) throw rateLimited(bySite.retryAfterSeconds);
      }
      return { kept: candidates, setAside: [] };
    },
  };
}

/** A repeat of an id inside one request; repeats across requests are found by the writer, inside the commit. */
const dedupInRequest: Gate = {
  name: 'dedup_in_request',
  run: ({ candidates }) => {
    const seen = new Set<string>();
    const kept: CandidateEvent[] = [];
    const setAside: SetAside[] = [];
    for (const candidate of candidates) {
      if (seen.has(candidate.parsed.canonicalId)) setAside.push({ candidate, reason: 'duplicate_in_request' });
      else {
        seen.add(candidate.parsed.canonicalId);
        kept.push(candidate);
      }
    }
    return { kept, setAside };
  },
};

/** Reject mode refuses the request; quarantine mode sets failing events aside for the dead-letter queue. */
function trackingPlan(deps: GateDeps): Gate {
  return {
    name: 'tracking_plan',
    refusalOutcome: 'rejected_schema',
    run: ({ request, candidates }) => {
      if (!deps.plan) return { kept: candidates, setAside: [] };
      const kept: CandidateEvent[] = [];
      const setAside: SetAside[] = [];
      for (const candidate of candidates) {
        const details = deps.plan.validate(candidate.object, candidate.pointer);
        if (details.length === 0) kept.push(candidate);
        else setAside.push({ candidate, reason: 'quarantined', details });
      }
      if (setAside.length > 0 && (request.schemaMode ?? deps.schemaMode) === 'reject') {
        throw new ApiError(400, 'schema_validation_failed', 'One or more events do not match the tracking plan; nothing was stored', setAside.flatMap((item) => item.details ?? []));
      }
      return { kept, setAside };
    },
  };
}

/** The gates in the order the pipeline runs them. */
export function defineGates(deps: GateDeps): Gate[] {
  return [consent, rateLimit(deps), dedupInRequest, trackingPlan(deps)];
}
