// The population of a funnel execution as the analysis counts it: the read model gives everyone who did the first
// step with their step events in typed columns (src/read-model/funnel-questions.ts), and each person is matched here
// (match-funnel.ts) into the attempt that reached deepest, without an object per event.
import { ApiError } from '../http/errors.ts';
import type { FunnelPopulation } from '../read-model/funnel-questions.ts';
import type { Freshness, ReadScope } from '../read-model/questions.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { dayMs } from '../vocabulary/periods.ts';
import type { FunnelQuery } from './funnel-query.ts';
import { FunnelMatcher } from './match-funnel.ts';

/** An event of a person's chosen attempt: its place in (ts, seq) order. */
export interface StepEvent {
  ts: number;
  /** -1 unless the population was read with seqs (the panels, all-sites). */
  seq: number;
}

export interface PersonFunnel {
  /** 'u:' + user_id, or the read model's key of an anonymous visitor. */
  person: string;
  /** How many steps the person reached in order within the window. */
  depth: number;
  /** The chosen attempt's events, one per step reached. */
  steps: StepEvent[];
  /** The visitor keys of the person's events read (the panels hand them back to the read model). */
  visitors: number[];
  /** The breakdown column's value of the first step's event (null without a breakdown, or when it has none). */
  breakdownValue: string | null;
}

export interface Population {
  people: PersonFunnel[];
  /** The anon_id of each negative visitor key. */
  unnumbered: ReadonlyMap<number, string>;
  /** The events were read up to this position: the execution's watermark. */
  asOf: number;
  freshness: Freshness;
}

export interface PopulationInput {
  scope: ReadScope;
  query: FunnelQuery;
  /** An execution's watermark (its panels); absent, a new execution at the projector's position. */
  asOf?: number;
  /** Read each event's seq (the panels need their attempts' events by seq). */
  withSeq?: boolean;
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
 * The end (exclusive, epoch ms) of the events an execution reads: the range, plus the window after it when only the
 * first step must be in it.
 * @example readEndMs(query) // Date.parse('2026-03-21') + query.windowMs
 */
export function readEndMs(query: FunnelQuery): number {
  const rangeEndMs = (query.range.toDay + 1) * dayMs;
  return query.dateMode === 'first_step' ? rangeEndMs + query.windowMs : rangeEndMs;
}

/**
 * Every person who did the first step (in the range, passing the filters), matched against the funnel.
 * @example const { people, asOf } = await readPopulation(readModel, { scope, query });
 */
export async function readPopulation(readModel: ReadModel, input: PopulationInput): Promise<Population> {
  const { query } = input;
  const maxEvents = input.maxEvents ?? maxFunnelEvents;
  const answer = await readModel.funnelPopulation({
    scope: input.scope,
    range: query.range,
    filters: query.filters,
    withInternal: query.withInternal,
    steps: query.steps,
    afterRangeMs: query.dateMode === 'first_step' ? query.windowMs : 0,
    breakdown: query.breakdown,
    maxEvents,
    asOf: input.asOf,
    withSeqs: input.withSeq === true,
  });
  if (answer.overCap) {
    throw new ApiError(400, 'range_too_large', `The analysis would read more than ${maxEvents} events: narrow the range or the scope`, [
      { path: `${input.at ?? ''}/to`, message: `the range and scope hold more than ${maxEvents} events to read` },
    ]);
  }
  return { people: matchPeople(query, answer), unnumbered: answer.people.unnumbered, asOf: answer.asOf, freshness: answer.freshness };
}

/** Each person's deepest attempt, matched on the population's columns. */
function matchPeople(query: FunnelQuery, population: FunnelPopulation): PersonFunnel[] {
  const { events, people } = population;
  const matcher = new FunnelMatcher(events.ts, events.steps, query.steps.length, query.windowMs);
  const matched: PersonFunnel[] = [];
  for (let person = 0; person < people.keys.length; person++) {
    const { depth, path } = matcher.match(people.order, people.offsets[person]!, people.offsets[person + 1]!);
    matched.push({
      person: people.keys[person]!,
      depth,
      steps: path.map((row) => ({ ts: events.ts[row]!, seq: events.seqs ? events.seqs[row]! : -1 })),
      visitors: people.visitors[person]!,
      breakdownValue: query.breakdown && depth > 0 ? (events.breakdownValues[path[0]!] ?? null) : null,
    });
  }
  return matched;
}
