// The funnel answer: people reaching each step, conversion from the start and from the previous step, the median
// time from the previous step, and the same per breakdown value (the value of the person's first-step event).
import type { FunnelQuery } from './funnel-query.ts';
import type { PersonFunnel } from './population.ts';
import { medianSeconds, ratio } from './stats.ts';

export interface FunnelStepRow {
  index: number;
  label: string;
  count: number;
  conversion_from_start: number;
  conversion_from_previous: number;
  median_seconds_from_previous: number | null;
}

export interface FunnelData {
  execution_id: string;
  steps: FunnelStepRow[];
  breakdown?: { value: string; steps: FunnelStepRow[] }[];
}

/** Breakdown values kept (by people who started, then value); the rest are left out and meta.truncated says so. */
export const maxBreakdownValues = 25;
const noValue = '(none)';

export const funnelMeasures: Record<string, string> = {
  count: 'people (anon_ids merged through user_id) who reached the step in order within the window',
  conversion_from_start: 'count / count of step 1',
  conversion_from_previous: 'count / count of the previous step',
  median_seconds_from_previous: 'median seconds from the previous step to this one, over the people who reached it',
};

/**
 * Step rows over the people (all of them, or one breakdown value's).
 * @example toStepRows(query, people)[1] // { index: 2, label: 'signup', count: 3, … }
 */
export function toStepRows(query: FunnelQuery, people: readonly PersonFunnel[]): FunnelStepRow[] {
  const stepCount = query.steps.length;
  const counts = new Array<number>(stepCount).fill(0);
  const gaps: number[][] = Array.from({ length: stepCount }, () => []);
  for (const person of people) {
    for (let step = 0; step < person.depth; step++) {
      counts[step]!++;
      if (step > 0) gaps[step]!.push(person.steps[step]!.ts - person.steps[step - 1]!.ts);
    }
  }
  return query.steps.map((step, index) => ({
    index: index + 1,
    label: step.label,
    count: counts[index]!,
    conversion_from_start: ratio(counts[index]!, counts[0]!),
    conversion_from_previous: index === 0 ? ratio(counts[0]!, counts[0]!) : ratio(counts[index]!, counts[index - 1]!),
    median_seconds_from_previous: index === 0 ? null : medianSeconds(gaps[index]!),
  }));
}

/**
 * The answer's data but the execution_id, and whether breakdown values were left out.
 * @example const { data, truncated } = funnelReport(query, people);
 */
export function funnelReport(query: FunnelQuery, people: readonly PersonFunnel[]): { data: Omit<FunnelData, 'execution_id'>; truncated: boolean } {
  const started = people.filter((person) => person.depth > 0);
  const steps = toStepRows(query, started);
  if (!query.breakdown) return { data: { steps }, truncated: false };
  const groups = new Map<string, PersonFunnel[]>();
  for (const person of started) {
    const value = person.breakdownValue ?? noValue;
    const group = groups.get(value);
    if (group) group.push(person);
    else groups.set(value, [person]);
  }
  const ranked = [...groups].sort(([a, left], [b, right]) => right.length - left.length || (a < b ? -1 : a > b ? 1 : 0));
  return {
    data: { steps, breakdown: ranked.slice(0, maxBreakdownValues).map(([value, group]) => ({ value, steps: toStepRows(query, group) })) },
    truncated: ranked.length > maxBreakdownValues,
  };
}
