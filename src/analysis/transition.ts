// The people at a chosen transition of an execution: everyone who reached from_step, split into those who went on
// to reach to_step (converted) and those who did not (dropped). Correlation and explanation both start here.
import type { PersonFunnel } from './population.ts';

export interface Transition {
  /** 1-based step indexes, from_step < to_step. */
  fromStep: number;
  toStep: number;
}

export interface TransitionPeople {
  converted: PersonFunnel[];
  dropped: PersonFunnel[];
}

/** @example const { converted, dropped } = splitAtTransition(people, { fromStep: 1, toStep: 2 }); */
export function splitAtTransition(people: readonly PersonFunnel[], transition: Transition): TransitionPeople {
  const converted: PersonFunnel[] = [];
  const dropped: PersonFunnel[] = [];
  for (const person of people) {
    if (person.depth < transition.fromStep) continue;
    (person.depth >= transition.toStep ? converted : dropped).push(person);
  }
  return { converted, dropped };
}
