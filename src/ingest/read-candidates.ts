// The first step: the body becomes 1 to 500 events, each checked at the wire boundary; any bad one refuses all.
import { parseJsonText } from '../http/body.ts';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import { findIllFormedStrings, mayHoldLoneSurrogate } from '../http/well-formed.ts';
import type { CandidateEvent, IngestRequest } from './ingest-types.ts';
import { findRepeatedMembers } from './repeated-members.ts';
import { countWrittenMembers, splitJsonArray } from './split-json-array.ts';
import { parseWireEvent } from '../event-store/wire-event.ts';

export const maxEventsPerRequest = 500;
/** A body refused for repeated names points at this many of them at most (as at most 20 lone surrogates). */
const maxRepeatDetails = 20;

export interface BodyItem {
  raw: string;
  value: unknown;
  pointer: string;
  /** How many object members `raw` writes (repeated ones included). */
  members: number;
}

/** Body → (raw text, parsed value, pointer, members written) per event; refuses an empty or oversized array. */
export function splitBody(bodyText: string): BodyItem[] {
  const document = parseJsonText(bodyText);
  if (!Array.isArray(document)) return [{ raw: bodyText.trim(), value: document, pointer: '', members: countWrittenMembers(bodyText) }];
  if (document.length === 0 || document.length > maxEventsPerRequest) {
    throw ApiError.invalidPayload([{ path: '', message: `must hold 1 to ${maxEventsPerRequest} events` }]);
  }
  const elements = splitJsonArray(bodyText);
  return document.map((value, index) => {
    const element = elements[index];
    if (element) return { raw: element.text, value, pointer: `/${index}`, members: element.members };
    const raw = JSON.stringify(value);
    return { raw, value, pointer: `/${index}`, members: countWrittenMembers(raw) };
  });
}

/**
 * Refuses a body in which an object repeats a member name, anywhere in any event (400 invalid_payload, a detail at
 * each: `/3/props/plan`). Before anything reads the events (the site they name, the plan, the store): which of the
 * values counts would be a guess.
 */
function refuseRepeatedMembers(items: BodyItem[]): void {
  const details: ErrorDetail[] = [];
  for (const item of items) {
    details.push(...findRepeatedMembers(item.raw, item.value, item.pointer, item.members, maxRepeatDetails - details.length));
    if (details.length >= maxRepeatDetails) break;
  }
  if (details.length > 0) throw ApiError.invalidPayload(details, 'An event repeats a member name; nothing was stored');
}

/**
 * The anon_id the collector gives an event that has none (a cookieless site's browser event), or undefined: the
 * event is then checked as sent, and refused for its missing anon_id as before cookieless sites existed.
 */
export type AnonIdFor = (siteId: string, ts: unknown) => string | undefined;

/** The event with the collector's anon_id when it sent none and `anonIdFor` gives one; raw stays as received. */
function withDerivedAnonId(value: unknown, siteId: string, anonIdFor: AnonIdFor | undefined): Record<string, unknown> | undefined {
  if (!anonIdFor || typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const event = value as Record<string, unknown>;
  if (event.anon_id !== undefined || event.site_id !== siteId) return undefined;
  const anonId = anonIdFor(siteId, event.ts);
  return anonId === undefined ? undefined : { ...event, anon_id: anonId };
}

/**
 * Resolves the site (an API key without X-Site-Id names it through the events) and checks every event: its fields,
 * and every string in it (props and unknown fields included) for lone surrogates.
 */
export function readCandidates(request: IngestRequest, items: BodyItem[], nowMs: number, anonIdFor?: AnonIdFor): { siteId: string; candidates: CandidateEvent[] } {
  refuseRepeatedMembers(items);
  const siteId =
    typeof request.siteId === 'string'
      ? request.siteId
      : request.siteId(items.map((item) => (item.value as { site_id?: unknown } | null)?.site_id).filter((id): id is string => typeof id === 'string'));
  const details: ErrorDetail[] = [];
  const candidates: CandidateEvent[] = [];
  for (const item of items) {
    // Walked only when the text holds a surrogate escape: the scan is cheap, the walk is not.
    if (mayHoldLoneSurrogate(item.raw)) details.push(...findIllFormedStrings(item.value, item.pointer));
    const derived = withDerivedAnonId(item.value, siteId, anonIdFor);
    const value = derived ?? item.value;
    const result = parseWireEvent(value, nowMs, item.pointer);
    if (!result.ok) details.push(...result.details);
    else if (result.value.event.site_id !== siteId) details.push({ path: `${item.pointer}/site_id`, message: 'must be the authenticated site' });
    else candidates.push({ pointer: item.pointer, raw: item.raw, object: value as Record<string, unknown>, parsed: result.value, ...(derived && { anonIdDerived: true }) });
  }
  if (details.length > 0) throw ApiError.invalidPayload(details, 'One or more events are invalid; nothing was stored');
  return { siteId, candidates };
}
