// What the panels of an execution (correlation, explanation) read beyond the funnel's own step events, person by
// person and only for the people at the transition: the event types of an attempt and the next event after a step.
// A person's events are read through the projector's visitor index, one (site, anon_id) at a time, never by reading
// every event of the range: on a busy month that is hundreds of thousands of rows for a few thousand people.
import type { Db } from '../../db/open.ts';
import { findVisitorFirstInSpan, listVisitorSpanTypes, type VisitorNextEventRow } from '../../projector/queries/visitor-events.ts';
import { listUserAnonIds } from '../../projector/queries/user-anon-ids.ts';
import type { FunnelQuery } from '../../analysis/funnel-query.ts';
import { resolvePersons } from './persons.ts';
import { anonIdsOfVisitors, type PersonFunnel, type Population, scanBounds } from './funnel-population.ts';

/** An event's position in the merged (ts, seq) order of a person's events. */
export interface EventPosition {
  ts: number;
  seq: number;
}

export interface AttemptEvents {
  /** Distinct types of the person's events strictly between `after` and `until` (until.seq omitted: every event of until.ts). */
  typesBetween(person: PersonFunnel, after: EventPosition, until: { ts: number; seq?: number }): Set<string>;
  /** The person's first event after `after`, within the execution's range (plus the window), or undefined. */
  nextEvent(person: PersonFunnel, after: EventPosition): VisitorNextEventRow | undefined;
}

export interface AttemptEventsInput {
  siteIds: readonly string[];
  query: FunnelQuery;
  watermarkSeq: number;
  /** The projector's position, read in the same snapshot (bindings are taken back from it to the watermark). */
  projectedSeq: number;
  /** Every person whose events will be read (their anon_ids are resolved once, together). */
  people: readonly PersonFunnel[];
  /** The population they come from (the anon_ids of its unnumbered visitor keys). */
  population: Pick<Population, 'unnumbered'>;
}

/**
 * Call inside the snapshot the population was read in.
 * @example const attempts = readAttemptEvents(db, { siteIds, query, watermarkSeq, projectedSeq, people }); attempts.nextEvent(person, step)
 */
export function readAttemptEvents(db: Db, input: AttemptEventsInput): AttemptEvents {
  const anonIdsOf = anonIdsOfPeople(db, input);
  const endMs = scanBounds(input.query).endMs;
  const withInternal = input.query.withInternal ? 1 : 0;
  const spans = (person: PersonFunnel, after: EventPosition, untilTs: number, untilSeq: number) => {
    const params = [];
    for (const anonId of anonIdsOf.get(person.person) ?? []) {
      for (const siteId of input.siteIds) {
        params.push({
          site_id: siteId,
          anon_id: anonId,
          after_ts: after.ts,
          after_seq: after.seq,
          until_ts: untilTs,
          until_seq: untilSeq,
          with_internal: withInternal,
          max_seq: input.watermarkSeq,
        });
      }
    }
    return params;
  };
  return {
    typesBetween(person, after, until) {
      const types = new Set<string>();
      // Never past the events the execution read ([start, end) of the range).
      const [untilTs, untilSeq] = until.ts >= endMs ? [endMs - 1, Number.MAX_SAFE_INTEGER] : [until.ts, until.seq ?? Number.MAX_SAFE_INTEGER];
      for (const params of spans(person, after, untilTs, untilSeq)) for (const type of listVisitorSpanTypes(db, params)) types.add(type);
      return types;
    },
    nextEvent(person, after) {
      let first: VisitorNextEventRow | undefined;
      for (const params of spans(person, after, endMs - 1, Number.MAX_SAFE_INTEGER)) {
        const event = findVisitorFirstInSpan(db, params);
        if (event && (!first || event.ts < first.ts || (event.ts === first.ts && event.seq < first.seq))) first = event;
      }
      return first;
    },
  };
}

/**
 * Each person's anon_ids as of the watermark: an unbound person is their one anon_id; a user is every anon_id bound to
 * them (on any site of the scope: a binding holds on all of them) that resolves back to them, including devices
 * that did none of the funnel's steps.
 */
function anonIdsOfPeople(db: Db, input: AttemptEventsInput): Map<string, string[]> {
  const anonIdOfKey = anonIdsOfVisitors(db, input.siteIds, input.population, [...new Set(input.people.flatMap((person) => person.visitors))]);
  const anonIds = new Map<string, string[]>();
  const otherDevices = new Set<string>();
  for (const person of input.people) {
    anonIds.set(person.person, person.visitors.map((key) => anonIdOfKey.get(key)!));
    if (!person.person.startsWith('u:')) continue;
    const userId = person.person.slice(2);
    for (const siteId of input.siteIds) for (const anonId of listUserAnonIds(db, { site_id: siteId, user_id: userId })) otherDevices.add(anonId);
  }
  const personOf = resolvePersons(db, input.siteIds, input.watermarkSeq, input.projectedSeq, [...otherDevices]);
  for (const anonId of otherDevices) {
    const list = anonIds.get(personOf(anonId));
    if (list && !list.includes(anonId)) list.push(anonId);
  }
  return anonIds;
}
