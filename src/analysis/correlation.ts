// Funnel correlation: which values are over- or under-represented among the people who converted at a transition
// versus those who dropped, with odds ratios, strongest first. Factors: the first-step event's browser, os, device
// and country; the source, campaign and entry path of the visit holding it (the projector's visits); and the event
// types a person did during the attempt before converting or dropping (read person by person: attempt-events.ts).
// Only factors shared by enough people count.
import type { Db } from '../db/open.ts';
import { findVisitOfEvent } from '../read-model/sqlite/queries/visit-of-event.ts';
import type { FunnelQuery } from './funnel-query.ts';
import type { AttemptEvents } from '../read-model/sqlite/attempt-events.ts';
import { type PersonFunnel, readStepEventDetails } from '../read-model/sqlite/funnel-population.ts';
import { ratio } from './stats.ts';
import { splitAtTransition, type Transition } from './transition.ts';

/** A factor is reported only when at least this many people at the transition (converted + dropped) have it. */
export const minPeoplePerFactor = 10;
/** At most this many factors are returned (meta.truncated says when more qualified). */
export const maxFactors = 50;

export interface CorrelationFactor {
  dimension: string;
  value: string;
  converted: number;
  dropped: number;
  odds_ratio: number;
  success_rate: number;
}

export const correlationMeasures: Record<string, string> = {
  converted: 'people with the value who reached to_step (among those who reached from_step)',
  dropped: 'people with the value who reached from_step but not to_step',
  odds_ratio: `(converted with / dropped with) / (converted without / dropped without), 0.5 added to every cell when one is 0; values held by fewer than ${minPeoplePerFactor} people, or by everybody, are left out`,
  success_rate: 'converted / (converted + dropped) among people with the value',
};

/** The person's factors, as "dimension\0value" keys. */
function factorsOf(db: Db, attempts: AttemptEvents, context: FactorContext, person: PersonFunnel, converted: boolean): Set<string> {
  const factors = new Set<string>();
  const add = (dimension: string, value: string | null) => {
    if (value !== null && value !== '') factors.add(`${dimension}\u0000${value}`);
  };
  const first = person.steps[0]!;
  const details = readStepEventDetails(db, first);
  add('browser', details.browser);
  add('os', details.os);
  add('device', details.device_type);
  add('country', details.country);
  const visit = findVisitOfEvent(db, { site_id: details.site_id, anon_id: details.anon_id, is_internal: details.is_internal, ts: first.ts });
  // A visit whose entry the execution does not count (a late event past the watermark) falls back to the event's own values.
  const fromVisit = visit !== undefined && visit.entry_seq <= context.watermarkSeq;
  add('source', fromVisit ? visit.source : details.source);
  add('campaign', fromVisit ? visit.utm_campaign : details.utm_campaign);
  add('entry_path', fromVisit ? visit.entry_path : details.path);
  // Event types done during the attempt: after its first step, up to the conversion (converted) or the end of the
  // window (dropped); the funnel's own step types are left out (they define the groups).
  const until = converted ? person.steps[context.transition.toStep - 1]! : { ts: first.ts + context.query.windowMs };
  for (const type of attempts.typesBetween(person, first, until)) if (!context.stepTypes.has(type)) add('event_type', type);
  return factors;
}

interface FactorContext {
  query: FunnelQuery;
  transition: Transition;
  watermarkSeq: number;
  stepTypes: Set<string>;
}

/** @example const { factors } = correlate(db, attempts, query, { fromStep: 1, toStep: 2 }, people, execution.watermarkSeq); */
export function correlate(
  db: Db,
  attempts: AttemptEvents,
  query: FunnelQuery,
  transition: Transition,
  people: readonly PersonFunnel[],
  watermarkSeq: number,
): { factors: CorrelationFactor[]; truncated: boolean; warnings: string[] } {
  const { converted, dropped } = splitAtTransition(people, transition);
  if (converted.length === 0 || dropped.length === 0) {
    return { factors: [], truncated: false, warnings: ['Nobody converted or nobody dropped at this transition: there is nothing to compare.'] };
  }
  const context: FactorContext = { query, transition, watermarkSeq, stepTypes: new Set(query.steps.map((step) => step.type)) };
  const counts = new Map<string, { converted: number; dropped: number }>();
  for (const [group, isConverted] of [[converted, true], [dropped, false]] as const) {
    for (const person of group) {
      for (const key of factorsOf(db, attempts, context, person, isConverted)) {
        let count = counts.get(key);
        if (!count) counts.set(key, (count = { converted: 0, dropped: 0 }));
        if (isConverted) count.converted++;
        else count.dropped++;
      }
    }
  }
  const scored: (CorrelationFactor & { strength: number })[] = [];
  for (const [key, count] of counts) {
    if (count.converted + count.dropped < minPeoplePerFactor) continue;
    // A value everybody at the transition shares compares nothing with nothing.
    if (count.converted === converted.length && count.dropped === dropped.length) continue;
    const [dimension, value] = key.split('\u0000') as [string, string];
    let [a, b, c, d] = [count.converted, count.dropped, converted.length - count.converted, dropped.length - count.dropped];
    if (a === 0 || b === 0 || c === 0 || d === 0) [a, b, c, d] = [a + 0.5, b + 0.5, c + 0.5, d + 0.5];
    const oddsRatio = (a * d) / (b * c);
    scored.push({
      dimension,
      value,
      converted: count.converted,
      dropped: count.dropped,
      // Six significant digits: odds ratios far below 1 matter as much as those far above it.
      odds_ratio: Number(oddsRatio.toPrecision(6)),
      success_rate: ratio(count.converted, count.converted + count.dropped),
      strength: Math.abs(Math.log(oddsRatio)),
    });
  }
  scored.sort(
    (x, y) =>
      y.strength - x.strength ||
      y.converted + y.dropped - (x.converted + x.dropped) ||
      (x.dimension < y.dimension ? -1 : x.dimension > y.dimension ? 1 : 0) ||
      (x.value < y.value ? -1 : x.value > y.value ? 1 : 0),
  );
  return {
    factors: scored.slice(0, maxFactors).map(({ strength: _strength, ...factor }) => factor),
    truncated: scored.length > maxFactors,
    warnings: [],
  };
}
