// The one ingest pipeline, used by POST /events, POST /s2s/events and DLQ replay: the wire check, then the gates
// of gates.ts in order, then enrichment and the group-commit write queue. Every outcome is counted for /metrics,
// per event. A request is all-or-nothing: any refusal refuses the whole batch and stores nothing.
import type { Clock, Random } from '../clock.ts';
import type { ErrorDetail } from '../http/errors.ts';
import type { AppMetrics } from '../metrics/app-metrics.ts';
import type { TrackingPlan } from '../plan/tracking-plan.ts';
import { enrichEvent } from './enrich.ts';
import { defineGates, type Gate, type GateInput, type SetAside } from './gates.ts';
import type { GeoLookup } from './geo.ts';
import type { CandidateEvent, IngestOutcome, IngestRequest } from './ingest-types.ts';
import type { InternalIpMatcher } from './internal-ips.ts';
import type { TokenBuckets } from './rate-limit.ts';
import { type AnonIdFor, type BodyItem, readCandidates, splitBody } from './read-candidates.ts';
import type { StoredEventInput } from '../event-store/stored-event.ts';
import { visitorOf } from './visitor-context.ts';
import type { DlqInput, WriteQueue, WriteResult } from './write-queue.ts';
import type { CookielessVisitors } from '../visitors/cookieless-ids.ts';
import { parseIsoTimestamp } from '../http/validate.ts';

export type { IngestChannel, IngestOutcome, IngestRequest, StoredVisitorContext } from './ingest-types.ts';
export { maxEventsPerRequest } from './read-candidates.ts';

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
  /** Derives the anon_id of cookieless sites' browser events that carry none. */
  cookieless?: CookielessVisitors;
}

export interface IngestPipeline {
  ingest(request: IngestRequest): Promise<IngestOutcome>;
}

/** Counts events of one outcome for /metrics (sightline_ingest_events_total). */
type CountOutcome = (outcome: string, amount: number) => void;

/**
 * Each request goes through the steps below in order; a step that refuses counts every event of the request under
 * its outcome and refuses the whole request.
 * @example const outcome = await createIngestPipeline(deps).ingest({ siteId, bodyText, channel: 'browser', … });
 */
export function createIngestPipeline(deps: IngestPipelineDeps): IngestPipeline {
  const gates = defineGates(deps);
  const count: CountOutcome = (outcome, amount) => {
    if (amount > 0) deps.metrics.ingestEvents.inc({ outcome }, amount);
  };
  return {
    async ingest(request) {
      const { siteId, candidates } = readRequest(deps, request, count);
      const { kept, setAside } = passGates(gates, { request, siteId, candidates }, count);
      const written = await writeEvents(deps, { request, siteId, kept, setAside, received: candidates.length }, count);
      return countOutcome(written, setAside, count);
    },
  };
}

/**
 * The wire check: the body's events as candidates of one site. A body refused whole counts once per event it holds
 * (once when it holds none).
 */
function readRequest(deps: IngestPipelineDeps, request: IngestRequest, count: CountOutcome): { siteId: string; candidates: CandidateEvent[] } {
  let items: BodyItem[] | undefined;
  try {
    items = splitBody(request.bodyText);
    return readCandidates(request, items, deps.clock.now(), anonIdFor(deps, request));
  } catch (error) {
    count('rejected_invalid', items?.length ?? 1);
    throw error;
  }
}

/** The gates of gates.ts in order: each keeps candidates or sets some aside (duplicates, consent, quarantine). */
function passGates(gates: Gate[], input: GateInput, count: CountOutcome): { kept: CandidateEvent[]; setAside: SetAside[] } {
  let candidates = input.candidates;
  const setAside: SetAside[] = [];
  for (const gate of gates) {
    try {
      const result = gate.run({ request: input.request, siteId: input.siteId, candidates });
      candidates = result.kept;
      setAside.push(...result.setAside);
    } catch (error) {
      if (gate.refusalOutcome) count(gate.refusalOutcome, input.candidates.length);
      throw error;
    }
  }
  return { kept: candidates, setAside };
}

interface EventsToWrite {
  request: IngestRequest;
  siteId: string;
  kept: CandidateEvent[];
  setAside: SetAside[];
  /** Events the request held: what a refusal of the write queue counts. */
  received: number;
}

/** The kept events, enriched, and the quarantined ones through the group-commit write queue; resolves once committed. */
async function writeEvents(deps: IngestPipelineDeps, { request, siteId, kept, setAside, received }: EventsToWrite, count: CountOutcome): Promise<WriteResult> {
  const quarantined = setAside.filter((item) => item.reason === 'quarantined');
  try {
    return await deps.writeQueue.submit({
      events: kept.map((candidate) => toStored(deps, request, siteId, candidate)),
      quarantined: quarantined.map((item) => toDeadLetter(deps, request, siteId, item.candidate, item.details ?? [])),
    });
  } catch (error) {
    count('rejected_overloaded', received);
    throw error;
  }
}

function countOutcome(written: WriteResult, setAside: SetAside[], count: CountOutcome): IngestOutcome {
  const outcome: IngestOutcome = {
    accepted: written.accepted,
    bots: written.bots,
    duplicates: setAside.filter((item) => item.reason === 'duplicate_in_request').length + written.duplicates,
    quarantined: written.quarantined,
    dropped: setAside.filter((item) => item.reason === 'consent_denied').length,
  };
  count('accepted', outcome.accepted);
  count('duplicate', outcome.duplicates);
  count('quarantined', outcome.quarantined);
  count('dropped_consent', outcome.dropped);
  return outcome;
}

function toStored(deps: IngestPipelineDeps, request: IngestRequest, siteId: string, candidate: CandidateEvent): StoredEventInput {
  const { parsed } = candidate;
  return enrichEvent({
    siteId,
    event: parsed.event,
    canonicalId: parsed.canonicalId,
    tsMs: parsed.tsMs,
    revenueMinor: parsed.revenueMinor,
    raw: candidate.raw,
    visitor: visitorOf(deps, request, candidate).visitor,
    anonIdDerived: candidate.anonIdDerived === true,
  });
}

function toDeadLetter(deps: IngestPipelineDeps, request: IngestRequest, siteId: string, candidate: CandidateEvent, details: ErrorDetail[]): DlqInput {
  // The row holds one event: its error paths point into that event, without the array index.
  const unprefixed = details.map((detail) => ({ ...detail, path: detail.path.slice(candidate.pointer.length) }));
  return {
    id: deps.random.uuid(),
    site_id: siteId,
    payload: candidate.raw,
    error: JSON.stringify(unprefixed),
    context: JSON.stringify({ ...visitorOf(deps, request, candidate).stored, ...(candidate.anonIdDerived && { anon_id: candidate.parsed.event.anon_id }) }),
  };
}

/** Browser events of a cookieless site, and replays of what such events kept; one HMAC per event. */
function anonIdFor(deps: IngestPipelineDeps, request: IngestRequest): AnonIdFor | undefined {
  if (request.channel === 'replay') return () => request.storedVisitor?.anon_id;
  const cookieless = deps.cookieless;
  if (request.channel !== 'browser' || !cookieless) return undefined;
  return (siteId, ts) => {
    if (!cookieless.isCookieless(siteId)) return undefined;
    const eventMs = typeof ts === 'string' ? parseIsoTimestamp(ts) : undefined;
    // A malformed ts is refused by the wire check whatever id the event gets.
    return cookieless.visitorId(siteId, request.clientIp, request.userAgent, eventMs ?? deps.clock.now());
  };
}
