// The population of a funnel execution: the scope's events up to the watermark, read in one pass per site over
// (site_id, ts), grouped by person in memory and sorted in (ts, seq) order, each marked with the steps it matches,
// then matched (match-funnel.ts). Only the events of the steps' types (and paths) are read; the panels read the
// other events of the people they analyse one by one (attempt-events.ts).
import type { Db } from '../db/open.ts';
import { type FunnelEventRow, iterateFunnelEvents } from '../event-store/queries/funnel-events.ts';
import { ApiError } from '../http/errors.ts';
import { filterColumns, type ReportFilters } from '../http/common-params.ts';
import { dayMs } from '../projector/periods.ts';
import type { FunnelQuery, FunnelStep } from './funnel-query.ts';
import { matchFunnel, type PersonMatch } from './match-funnel.ts';
import type { ResolvePersons } from './persons.ts';

export interface FunnelEvent extends FunnelEventRow {
  mask: number;
}

export interface PersonFunnel extends PersonMatch {
  person: string;
  /** The person's events read, in (ts, seq) order. */
  events: FunnelEvent[];
}

export interface PopulationInput {
  siteIds: readonly string[];
  query: FunnelQuery;
  watermarkSeq: number;
  /** The people of the anon_ids read (called once, with all of them). */
  resolvePersons: ResolvePersons;
  /** At most this many events are read (default maxFunnelEvents); past it, a 400. */
  maxEvents?: number;
  /** Where the refusal points: '' for a funnel's body, '/query' for a panel's. */
  at?: string;
}

/**
 * The most events a funnel holds in memory (the steps' events of the range; its panels read the same ones). Past it
 * the request is refused (400 range_too_large) rather than risking the server's memory.
 */
export const maxFunnelEvents = 1_000_000;

/**
 * [start, end) of the events read: the range, plus the window after it when only the first step must be in it.
 * @example scanBounds(query) // { startMs, rangeEndMs, endMs }
 */
export function scanBounds(query: FunnelQuery): { startMs: number; rangeEndMs: number; endMs: number } {
  const startMs = query.range.fromDay * dayMs;
  const rangeEndMs = (query.range.toDay + 1) * dayMs;
  return { startMs, rangeEndMs, endMs: query.dateMode === 'first_step' ? rangeEndMs + query.windowMs : rangeEndMs };
}

function matchesStep(step: FunnelStep, event: FunnelEventRow, props: () => Record<string, unknown> | null): boolean {
  if (event.type !== step.type) return false;
  if (step.path !== null) {
    if (event.path === null) return false;
    if (step.prefix ? !event.path.startsWith(step.path) : event.path !== step.path) return false;
  }
  if (step.props) {
    const values = props();
    if (!values) return false;
    for (const [key, expected] of Object.entries(step.props)) if (values[key] !== expected) return false;
  }
  return true;
}

/** The filters select the people whose first step's event has the values (its own enrichment). */
function passesFilters(filters: ReportFilters, event: FunnelEventRow): boolean {
  for (const [name, values] of Object.entries(filters) as [keyof ReportFilters, string[]][]) {
    const value = event[filterColumns[name]];
    if (typeof value !== 'string' || !values.includes(value)) return false;
  }
  return true;
}

/**
 * Every person who did the first step (in the range, passing the filters), matched against the funnel.
 * @example const people = readPopulation(db, { siteIds: ['blog'], query, watermarkSeq: 120, resolvePersons });
 */
export function readPopulation(db: Db, input: PopulationInput): PersonFunnel[] {
  const { query } = input;
  const { startMs, rangeEndMs, endMs } = scanBounds(query);
  // Only the events that match a step's type and path are read (props are tested below).
  const stepFilters = query.steps.map(({ type, path, prefix }) => ({ type, path, prefix }));
  const options = {
    props: query.steps.some((step) => step.props !== null),
    wide: query.breakdown !== null || Object.keys(query.filters).some((name) => name !== 'path'),
  };
  // By anon_id first: the person of each anon_id is then looked up once, not once per event.
  const byAnon = new Map<string, FunnelEvent[]>();
  const maxEvents = input.maxEvents ?? maxFunnelEvents;
  let read = 0;
  for (const siteId of input.siteIds) {
    const rows = iterateFunnelEvents(
      db,
      { site_id: siteId, start_ms: startMs, end_ms: endMs, max_seq: input.watermarkSeq, with_internal: query.withInternal ? 1 : 0 },
      stepFilters,
      options,
    );
    for (const row of rows) {
      if (++read > maxEvents) {
        rows.return?.();
        throw new ApiError(400, 'range_too_large', `The analysis would read more than ${maxEvents} events: narrow the range or the scope`, [
          { path: `${input.at ?? ''}/to`, message: `the range and scope hold more than ${maxEvents} events to read` },
        ]);
      }
      let parsed: Record<string, unknown> | null | undefined;
      // A closure per row only when a step reads props (a month of events is hundreds of thousands of rows).
      const props = options.props ? () => (parsed === undefined ? (parsed = parseProps(row.props)) : parsed) : noProps;
      let mask = 0;
      for (let step = 0; step < query.steps.length; step++) {
        if (!matchesStep(query.steps[step]!, row, props)) continue;
        if (step === 0 && (row.ts >= rangeEndMs || !passesFilters(query.filters, row))) continue;
        mask |= 1 << step;
      }
      const event = row as FunnelEvent;
      event.mask = mask;
      const events = byAnon.get(row.anon_id);
      if (events) events.push(event);
      else byAnon.set(row.anon_id, [event]);
    }
  }
  const personOf = input.resolvePersons([...byAnon.keys()]);
  // A person who never did the first step is in no answer: their events are not sorted or matched.
  const starters = new Set<string>();
  for (const [anonId, events] of byAnon) if (events.some((event) => event.mask & 1)) starters.add(personOf(anonId));
  const byPerson = new Map<string, FunnelEvent[]>();
  for (const [anonId, events] of byAnon) {
    const person = personOf(anonId);
    if (!starters.has(person)) continue;
    const merged = byPerson.get(person);
    if (merged) for (const event of events) merged.push(event);
    else byPerson.set(person, events);
  }
  const people: PersonFunnel[] = [];
  for (const [person, events] of byPerson) {
    events.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
    people.push({ person, events, ...matchFunnel(events, query.steps.length, query.windowMs) });
  }
  return people;
}

const noProps = () => null;

function parseProps(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
