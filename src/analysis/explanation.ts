// Funnel explanation at a transition: how many converted and dropped, the time to convert (p50, p90, seconds from
// the from_step event to the to_step event), and what the dropped people did next (their first event after the
// from_step event, by type and path, most frequent first).
import type { ReadScope } from '../read-model/questions.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import type { FunnelQuery } from './funnel-query.ts';
import { type Population, readEndMs } from './population.ts';
import { percentileSeconds } from './stats.ts';
import { splitAtTransition, type Transition } from './transition.ts';

/** At most this many (type, path) rows of next events (meta.truncated says when more existed). */
export const maxNextEvents = 20;

export interface ExplanationData {
  converted: number;
  dropped: number;
  time_to_convert: { p50: number | null; p90: number | null };
  next_events_of_dropped: { type: string; path: string | null; count: number }[];
}

export const explanationMeasures: Record<string, string> = {
  converted: 'people who reached from_step and then to_step within the window',
  dropped: 'people who reached from_step but not to_step',
  time_to_convert: 'p50 and p90 (nearest rank) of seconds from the from_step event to the to_step event of the converted',
  next_events_of_dropped: "dropped people by their first event after the from_step event (the execution's range plus the window)",
};

export interface ExplanationInput {
  scope: ReadScope;
  query: FunnelQuery;
  transition: Transition;
  /** The execution's population (read with seqs) and its watermark. */
  population: Pick<Population, 'people' | 'unnumbered'>;
  watermarkSeq: number;
}

/** @example (await explain(readModel, { scope, query, transition: { fromStep: 1, toStep: 2 }, population, watermarkSeq })).data */
export async function explain(readModel: ReadModel, input: ExplanationInput): Promise<{ data: ExplanationData; truncated: boolean }> {
  const { transition } = input;
  const { converted, dropped } = splitAtTransition(input.population.people, transition);
  const durations = converted.map((person) => person.steps[transition.toStep - 1]!.ts - person.steps[transition.fromStep - 1]!.ts);
  const { attempts } = await readModel.attempts({
    scope: input.scope,
    asOf: input.watermarkSeq,
    withInternal: input.query.withInternal,
    endMs: readEndMs(input.query),
    unnumbered: input.population.unnumbered,
    attempts: dropped.map((person) => ({ person: { key: person.person, visitors: person.visitors }, nextAfter: person.steps[transition.fromStep - 1]! })),
  });
  const next = new Map<string, { type: string; path: string | null; count: number }>();
  for (const { next: event } of attempts) {
    if (!event) continue;
    const key = `${event.type}\u0000${event.path ?? ''}\u0000${event.path === null ? 0 : 1}`;
    const row = next.get(key);
    if (row) row.count++;
    else next.set(key, { type: event.type, path: event.path, count: 1 });
  }
  const rows = [...next.values()].sort(
    (a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0) || (a.path ?? '').localeCompare(b.path ?? ''),
  );
  return {
    data: {
      converted: converted.length,
      dropped: dropped.length,
      time_to_convert: { p50: percentileSeconds(durations, 50), p90: percentileSeconds(durations, 90) },
      next_events_of_dropped: rows.slice(0, maxNextEvents),
    },
    truncated: rows.length > maxNextEvents,
  };
}
