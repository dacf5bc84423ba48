// Offline check of recorded events (NDJSON) against the wire format and a tracking plan, as ingest would judge them.
import { parseIsoTimestamp } from '../http/validate.ts';
import { parseWireEvent } from '../event-store/wire-event.ts';
import type { TrackingPlan } from './tracking-plan.ts';

export interface EventLineFailure {
  /** 1-based line number in the file. */
  line: number;
  /** JSON Pointer into the line's JSON ("" for the line itself; "/3/props" for the 4th event of an array line). */
  path: string;
  message: string;
}

export interface EventsCheck {
  /** Events checked (an array line counts each of its elements). */
  checked: number;
  /** Events with at least one failure. */
  failedEvents: number;
  failures: EventLineFailure[];
}

/**
 * Checks every non-blank line: JSON, then the envelope (parseWireEvent), then the plan. A line may hold one event or
 * an array of events (a recorded request body). Recordings are old by nature, so the age and future bounds of `ts` are
 * judged against the event's own time, i.e. not at all.
 * @example checkRecordedEvents(plan, readFileSync('events.ndjson', 'utf8')).failures
 */
export function checkRecordedEvents(plan: TrackingPlan, ndjson: string): EventsCheck {
  const result: EventsCheck = { checked: 0, failedEvents: 0, failures: [] };
  for (const [index, text] of ndjson.split(/\r?\n/).entries()) {
    if (text.trim() === '') continue;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      result.checked += 1;
      result.failedEvents += 1;
      result.failures.push({ line, path: '', message: `not valid JSON: ${(error as Error).message}` });
      continue;
    }
    const events = Array.isArray(value) ? value.map((event, position) => ({ event, prefix: `/${position}` })) : [{ event: value, prefix: '' }];
    for (const { event, prefix } of events) {
      const failures = checkOneEvent(plan, event, prefix);
      result.checked += 1;
      if (failures.length > 0) result.failedEvents += 1;
      result.failures.push(...failures.map((failure) => ({ line, ...failure })));
    }
  }
  return result;
}

function checkOneEvent(plan: TrackingPlan, event: unknown, prefix: string): { path: string; message: string }[] {
  const ts = isRecord(event) && typeof event.ts === 'string' ? parseIsoTimestamp(event.ts) : undefined;
  const wire = parseWireEvent(event, ts ?? Date.now(), prefix);
  const envelope = wire.ok ? [] : wire.details;
  // The plan's verdict is worth seeing even when the envelope is wrong; ingest would stop at the envelope.
  const planned = isRecord(event) ? plan.validate(event, prefix) : [];
  return [...envelope, ...planned];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
