// The goal questions (goals-v2, CONTRACT section 10): for each goal, the people and events that converted on it in
// a selection, their revenue, and the selection's visitors the conversion rate is a share of.
import type { Answer, Selection } from './questions.ts';
import type { GoalFilter } from '../vocabulary/goal-rule.ts';

export interface GoalsQuestion extends Selection {
  /** The goals to count, each by its id and rule; answered in this order. */
  goals: readonly GoalFilter[];
  /** Only events at or after this time (epoch ms), and the denominator's visits starting from it: a rolling window (since=). */
  sinceMs?: number;
}

export interface GoalFigures {
  id: string;
  /** Distinct anon_ids with a converting event in the range (unique conversions). */
  visitors: number;
  /** Converting events in the range. */
  conversions: number;
  /** Revenue of the converting events by currency, in integer minor units, zero amounts left out. */
  revenue: ReadonlyMap<string, number>;
}

export interface GoalsFigures {
  /** The selection's visitors (as summary counts them): the denominator of every conversion rate. */
  visitors: number;
  goals: GoalFigures[];
}

export interface GoalQuestions {
  /**
   * Each goal's conversions among the events a selection counts (visit filters by the visit's first event, the path
   * filter on the converting event itself, as every report applies them).
   * @example await readModel.goals({ ...selection, goals: [{ id, rule: { kind: 'pageview', path: '/thanks' } }] })
   */
  goals(question: GoalsQuestion): Promise<Answer<GoalsFigures>>;
}
