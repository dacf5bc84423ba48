// Funnel correlation: which values are over- or under-represented among the people who converted at a transition
// versus those who dropped, with odds ratios, strongest first. Factors: the first-step event's browser, os, device
// and country; the source, campaign and entry path of the visit holding it (the projector's visits); and the event
// types a person did during the attempt before converting or dropping (the read model's attempts question).
// Only factors shared by enough people count.
import type { AttemptAnswer, AttemptQuestion } from '../read-model/funnel-questions.ts';
import type { ReadScope } from '../read-model/questions.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { FunnelQuery } from './funnel-query.ts';
import { type PersonFunnel, type Population, readEndMs } from './population.ts';
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

/** A person's factors, as "dimension\0value" keys, from what the read model answered about their attempt. */
function factorsOf(attempt: AttemptAnswer, stepTypes: ReadonlySet<string>): Set<string> {
  const factors = new Set<string>();
  const add = (dimension: string, value: string | null) => {
    if (value !== null && value !== '') factors.add(`${dimension}\u0000${value}`);
  };
  const context = attempt.context!;
  add('browser', context.browser);
  add('os', context.os);
  add('device', context.device);
  add('country', context.country);
  add('source', context.source);
  add('campaign', context.campaign);
  add('entry_path', context.entryPath);
  // The funnel's own step types are left out (they define the groups).
  for (const type of attempt.types!) if (!stepTypes.has(type)) add('event_type', type);
  return factors;
}

/**
 * What is asked about a person's attempt: the first step's event (its device, and the visit holding it), and the
 * event types done during the attempt: after its first step, up to the conversion (converted) or the end of the
 * window (dropped).
 */
function attemptQuestion(person: PersonFunnel, converted: boolean, query: FunnelQuery, transition: Transition): AttemptQuestion {
  const first = person.steps[0]!;
  const until = converted ? person.steps[transition.toStep - 1]! : { ts: first.ts + query.windowMs };
  return { person: { key: person.person, visitors: person.visitors }, contextOf: first, typesBetween: { after: first, until } };
}

export interface CorrelationInput {
  scope: ReadScope;
  query: FunnelQuery;
  transition: Transition;
  /** The execution's population (read with seqs) and its watermark. */
  population: Pick<Population, 'people' | 'unnumbered'>;
  watermarkSeq: number;
}

/** @example const { factors } = await correlate(readModel, { scope, query, transition: { fromStep: 1, toStep: 2 }, population, watermarkSeq }); */
export async function correlate(readModel: ReadModel, input: CorrelationInput): Promise<{ factors: CorrelationFactor[]; truncated: boolean; warnings: string[] }> {
  const { query, transition } = input;
  const { converted, dropped } = splitAtTransition(input.population.people, transition);
  if (converted.length === 0 || dropped.length === 0) {
    return { factors: [], truncated: false, warnings: ['Nobody converted or nobody dropped at this transition: there is nothing to compare.'] };
  }
  const { attempts } = await readModel.attempts({
    scope: input.scope,
    asOf: input.watermarkSeq,
    withInternal: query.withInternal,
    endMs: readEndMs(query),
    unnumbered: input.population.unnumbered,
    attempts: [...converted.map((person) => attemptQuestion(person, true, query, transition)), ...dropped.map((person) => attemptQuestion(person, false, query, transition))],
  });
  const stepTypes = new Set(query.steps.map((step) => step.type));
  const counts = new Map<string, { converted: number; dropped: number }>();
  attempts.forEach((attempt, index) => {
    const isConverted = index < converted.length;
    for (const key of factorsOf(attempt, stepTypes)) {
      let count = counts.get(key);
      if (!count) counts.set(key, (count = { converted: 0, dropped: 0 }));
      if (isConverted) count.converted++;
      else count.dropped++;
    }
  });
  return rankFactors(counts, converted.length, dropped.length);
}

/** The factors shared by enough people (and not by everybody), strongest odds ratio first, at most maxFactors. */
function rankFactors(counts: ReadonlyMap<string, { converted: number; dropped: number }>, converted: number, dropped: number) {
  const scored: (CorrelationFactor & { strength: number })[] = [];
  for (const [key, count] of counts) {
    if (count.converted + count.dropped < minPeoplePerFactor) continue;
    // A value everybody at the transition shares compares nothing with nothing.
    if (count.converted === converted && count.dropped === dropped) continue;
    const [dimension, value] = key.split('\u0000') as [string, string];
    let [a, b, c, d] = [count.converted, count.dropped, converted - count.converted, dropped - count.dropped];
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
