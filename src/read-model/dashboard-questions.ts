// The dashboard question (dashboard-v2, issue 29): every panel of one selection at once, the rankings, the series
// (the summary's headline figures and its chart) and the goals, each equal to what its own question answers for the
// same selection. Asked together, a filter no rollup carries costs one read of the range's raw events for all of
// them (a filter click on the dashboard), where asking them one by one read the range once per question.
import type { Answer, ComputedFrom, Selection } from './questions.ts';
import type { GoalFilter } from '../vocabulary/goal-rule.ts';
import type { GoalsFigures } from './goal-questions.ts';
import type { RankingAsk, RankingFigures } from './report-questions.ts';
import type { SeriesFigures } from './time-questions.ts';
import type { Interval } from '../vocabulary/periods-interval.ts';

export interface DashboardQuestion extends Selection {
  /** As RankingsQuestion's: each ranking's first page. */
  rankings: readonly RankingAsk[];
  /** The series' interval (SeriesQuestion's; a whole period, never cut at a moment). */
  interval: Interval;
  /** The goals to count (GoalsQuestion's), answered in this order; none: the goals' figures hold the visitors only. */
  goals: readonly GoalFilter[];
  /** A rolling window inside the range, for every part (as RankingsQuestion's, SeriesQuestion's and GoalsQuestion's). */
  sinceMs?: number;
}

/** The answer's own freshness and computedFrom are the rankings' (as rankings() gives them). */
export interface DashboardFigures {
  /** What rankings() answers for the asks, in their order. */
  rankings: (RankingFigures & { computedFrom: ComputedFrom })[];
  /** What series() answers for the selection, the interval and the window. */
  series: Answer<SeriesFigures>;
  /** What goals() answers for the selection, the goals and the window. */
  goals: Answer<GoalsFigures>;
}

export interface DashboardQuestions {
  /**
   * The rankings, the series and the goals of one selection together, each equal to its own question's answer.
   * @example await readModel.dashboard({ ...selection, rankings: [{ by: 'path', order: 'pageviews', limit: 10 }], interval: 'day', goals: [] })
   */
  dashboard(question: DashboardQuestion): Promise<Answer<DashboardFigures>>;
}
