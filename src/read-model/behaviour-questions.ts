// The behaviour questions (CONTRACT section 10, docs/reports.md): the common paths of pages within a visit
// (journeys), the pages before and after one page (page flow), and how many people come back in the weeks or months
// after their first visit (retention). Written in the questions' terms; the figures are exact.
import type { GoalRule } from '../vocabulary/goal-rule.ts';
import type { Answer, ReadScope, Selection } from './questions.ts';

/** Where a journey is anchored: its first step at a path's first pageview, or its last step at a path's last one. */
export type JourneyAnchor = { at: 'start' | 'end'; path: string };

export interface JourneysQuestion extends Selection {
  /** null: every visit's journey from its entry page. */
  anchor: JourneyAnchor | null;
  /** 2 to 6 pages per journey; a visit with fewer counts with its shorter path. */
  steps: number;
  /** The most visited journeys given (1 to 50). */
  limit: number;
}

export interface JourneyPath {
  steps: string[];
  /** Distinct visitors (anon_ids) with a visit on this path. */
  visitors: number;
  visits: number;
}

export interface Journeys {
  /** Most visits first, then most visitors, then steps in path order (docs/reports.md). */
  paths: JourneyPath[];
}

export interface PageFlowQuestion extends Selection {
  path: string;
  /** At most this many previous and next pages each (1 to 50). */
  limit: number;
}

export interface PathVisits {
  path: string;
  visits: number;
}

export interface PageFlow {
  /** The pages viewed just before the path (a visit counts once per page), most visits first, then path. */
  previous: PathVisits[];
  /** The pages viewed just after it, in the same order. */
  next: PathVisits[];
  /** Visits whose last page was the path. */
  exits: number;
}

export type RetentionPeriod = 'week' | 'month';

/** Who counts: the scope's people (anon_ids merged through user_id), their visits in the range of days. */
export interface RetentionQuestion {
  scope: ReadScope;
  /** Periods are ISO weeks (Monday, UTC) or calendar months; the range's first and last are cut to it. */
  range: Selection['range'];
  withInternal: boolean;
  period: RetentionPeriod;
  /**
   * Start on a goal: a cohort is then the people whose first conversion ever on it falls in the period (within the
   * range), and returning counts those seen again (any visit) in each later period. Null or absent: by first visit.
   */
  goal?: GoalRule | null;
}

export interface Cohort {
  /** The period's first day (day number since the epoch), even when the range starts later in it. */
  startDay: number;
  /** People first seen ever in this period (within the range). */
  size: number;
  /** Of them, how many were seen in each following period up to the range's end. */
  returning: number[];
}

export interface Retention {
  /** One per period of the range, oldest first (empty cohorts included). */
  cohorts: Cohort[];
}

export interface BehaviourQuestions {
  /**
   * The most common paths of pages within the visits that start in the range and pass the filters.
   * @example await readModel.journeys({ ...selection, anchor: { at: 'start', path: '/pricing' }, steps: 3, limit: 10 })
   */
  journeys(question: JourneysQuestion): Promise<Answer<Journeys>>;
  /**
   * The pages before and after one page in the visits that start in the range and pass the filters, and its exits.
   * @example await readModel.pageFlow({ ...selection, path: '/pricing', limit: 10 })
   */
  pageFlow(question: PageFlowQuestion): Promise<Answer<PageFlow>>;
  /**
   * Cohorts of people by the period of their first visit, and how many of them come back in each later period.
   * @example await readModel.retention({ scope, range, withInternal: false, period: 'week' })
   */
  retention(question: RetentionQuestion): Promise<Answer<Retention>>;
}
