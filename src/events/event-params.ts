// The parameters of the Events v2 endpoints beyond the common report parameters (src/reports/params.ts): the
// activity window's end, the stream's filters and resume cursor. Refusals are the same structured 400s.
import { parseIsoTimestamp } from '../http/validate.ts';
import type { ReportRange } from '../reports/grouping.ts';
import { listFilterNames, parseFilterParams, type QueryValues, single } from '../reports/params.ts';
import { dayMs } from '../projector/periods.ts';
import { reportErrors } from '../reports/report-errors.ts';

export const activityWindowMs = 60 * 60_000;
export const activityBucketMs = 5 * 60_000;

/** Event-time bounds of an inclusive range of UTC days: start_ms <= ts < end_ms. */
export function boundsOfRange(range: ReportRange): { start_ms: number; end_ms: number } {
  return { start_ms: range.fromDay * dayMs, end_ms: (range.toDay + 1) * dayMs };
}

/** Refuses parameters that mean something on other endpoints but nothing on this one, rather than ignore them. */
function refuseParams(query: QueryValues, names: readonly string[], endpoint: string): void {
  for (const name of names) {
    if (query[name] !== undefined) throw reportErrors.invalidParam(name, `is not a parameter of ${endpoint}`);
  }
}

/** activity-v2: `end` (ISO-8601 with an offset, default now) and every common parameter but from and to. */
export function parseActivityParams(query: QueryValues, now: number) {
  refuseParams(query, ['from', 'to'], 'activity-v2 (the window is set by end)');
  const text = single(query, 'end');
  const endMs = text === undefined ? now : parseIsoTimestamp(text);
  if (endMs === undefined) throw reportErrors.invalidParam('end', 'must be an ISO-8601 timestamp with an offset');
  if (endMs - activityWindowMs < 0) throw reportErrors.invalidParam('end', 'must be after 1970-01-01T01:00:00Z');
  return { ...parseFilterParams(query), endMs };
}

const eventTypePattern = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

export interface StreamParams {
  type: string | null;
  anonId: string | null;
  withInternal: boolean;
  /** The resume cursor: Last-Event-ID when sent (a reconnecting EventSource sends it), else the cursor parameter. */
  cursor: { value: string; name: 'cursor' | 'last-event-id' } | undefined;
}

/** stream-v2: name, anon_id, internal, timezone, bots and a resume cursor; no dates, scope or dimension filters. */
export function parseStreamParams(query: QueryValues, lastEventId: string | null): StreamParams {
  refuseParams(query, ['from', 'to', 'scope', 'source', ...listFilterNames], 'stream-v2');
  const { withInternal } = parseFilterParams(query);
  const type = single(query, 'name') ?? null;
  if (type !== null && !eventTypePattern.test(type)) throw reportErrors.invalidParam('name', 'must be an event type (^[A-Za-z][A-Za-z0-9_.:-]{0,63}$)');
  const anonId = single(query, 'anon_id') ?? null;
  if (anonId !== null && (anonId.length < 1 || anonId.length > 128)) throw reportErrors.invalidParam('anon_id', 'must be 1 to 128 characters');
  const cursorParam = single(query, 'cursor');
  const cursor = lastEventId ? { value: lastEventId, name: 'last-event-id' as const } : cursorParam !== undefined ? { value: cursorParam, name: 'cursor' as const } : undefined;
  return { type, anonId, withInternal, cursor };
}
