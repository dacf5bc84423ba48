// The goal questions over the embedded database, exactly from raw events: the selection's visits (visit filters by
// their first event, the goal filter by what they did), then each goal's converting events in the range that pass
// the path filter. The denominator is the selection's visitors as summary counts them, in the same snapshot.
import type { Db } from '../../db/open.ts';
import type { GoalQuestions, GoalFigures, GoalsFigures, GoalsQuestion } from '../goal-questions.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { convertingSeqsIn } from './goal-conversions.ts';
import { planRollupRead } from './grouped-report.ts';
import { eventMatchesGoal, goalHasProps, type GoalRule } from '../../vocabulary/goal-rule.ts';
import type { RawEventRow } from '../../event-store/queries/raw-window-events.ts';
import { matchesVisitFilters, toGroupedReport } from './raw-grouped.ts';
import { type RawPass, rawPass } from './raw-pass.ts';
import { readRollups } from './rollup-grouped.ts';
import type { RawVisit } from './raw-visits.ts';
import { toAnswerFreshness, toSelection, type SqliteReadOptions } from './report-reads.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';

/**
 * Each goal's figures counted from the visits handed to `add`, which must be the selection's visits a goal filter
 * keeps (a raw pass's selected visits): the goal's converting events in the range (from sinceMs) that pass the visit
 * and path filters, their people and their revenue. Fed by goals() alone, or by a dashboard's one pass. A goal
 * without props is matched on each event's type and path (what its rule looks at: no lookup); one with props by the
 * seqs of its converting events in the range (the props are read from the raw events).
 * @example const counter = goalCounter(db, question, maxSeq); pass.takeSelected(counter.add); pass.run(); counter.figures();
 */
export function goalCounter(db: Db, question: GoalsQuestion, maxSeq: number): { add: (visit: RawVisit) => void; figures: () => GoalFigures[] } {
  const startMs = Math.max(question.sinceMs ?? -Infinity, question.range.fromDay * dayMs);
  const endMs = (question.range.toDay + 1) * dayMs;
  // Only an event in the range counts, so the converting events of the range are all that is looked up (the
  // same answer as the events of the visits' whole span), before any visit is seen: visits can then be streamed.
  const goalsOfSeq = new Map<number, number[]>();
  const byRule: { index: number; rule: GoalRule }[] = [];
  question.goals.forEach(({ rule }, index) => {
    if (!goalHasProps(rule)) {
      byRule.push({ index, rule });
      return;
    }
    for (const seq of convertingSeqsIn(db, question.scope.siteIds, rule, startMs, endMs, maxSeq)) {
      const found = goalsOfSeq.get(seq);
      if (found) found.push(index);
      else goalsOfSeq.set(seq, [index]);
    }
  });
  const counts = question.goals.map(() => ({ people: new Set<string | number>(), conversions: 0, revenue: new Map<string, number>() }));
  const paths = question.filters.path;
  const count = (index: number, visit: RawVisit, event: RawEventRow) => {
    const counted = counts[index]!;
    counted.conversions++;
    counted.people.add(visit.visitor_number ?? visit.anon_id);
    if (event.revenue_minor !== null && event.revenue_currency !== null) {
      counted.revenue.set(event.revenue_currency, (counted.revenue.get(event.revenue_currency) ?? 0) + event.revenue_minor);
    }
  };
  return {
    add(visit) {
      if ((goalsOfSeq.size === 0 && byRule.length === 0) || !matchesVisitFilters(visit.entry, question.filters)) return;
      for (const event of visit.events) {
        if (event.ts < startMs || event.ts >= endMs || (paths && (event.path === null || !paths.includes(event.path)))) continue;
        for (const index of goalsOfSeq.get(event.seq) ?? []) count(index, visit, event);
        for (const { index, rule } of byRule) if (eventMatchesGoal(rule, { type: event.type, path: event.path, props: null })) count(index, visit, event);
      }
    },
    figures: () =>
      question.goals.map(({ id }, index) => {
        const { people, conversions, revenue } = counts[index]!;
        for (const [currency, amount] of revenue) if (amount === 0) revenue.delete(currency);
        return { id, visitors: people.size, conversions, revenue };
      }),
  };
}

/**
 * The goals' figures over a raw pass (raw-pass.ts, with the question's sinceMs): the denominator from the rollups
 * where one carries the filters (and the window is whole days), else from the pass, which also hands the goals'
 * counter its visits; the figures once the pass has run. A site without goals has nothing to find in its raw events:
 * its Goals panel costs one rollup read.
 * @example const goals = planGoals(db, question, maxSeq, pass); pass.run(); goals();
 */
export function planGoals(db: Db, question: GoalsQuestion, maxSeq: number, pass: RawPass): () => GoalsFigures {
  const selection = toSelection(question);
  const plan = question.sinceMs === undefined ? planRollupRead(selection, { by: 'all' }) : undefined;
  const rollupWhole = plan && readRollups(db, plan);
  const rawWhole = plan ? undefined : pass.group({ by: 'all' }, true);
  const counter = question.goals.length > 0 ? goalCounter(db, question, maxSeq) : undefined;
  if (counter) pass.takeSelected(counter.add);
  return () => {
    const whole = rollupWhole ?? toGroupedReport(rawWhole!());
    return { visitors: whole.visitorsOf(['']).get('')!, goals: counter ? counter.figures() : [] };
  };
}

export function createSqliteGoalReads({ db, waitForProjection }: SqliteReadOptions): GoalQuestions {
  return {
    async goals(question) {
      const caughtUp = await waitForProjection();
      return inSnapshot(db, () => {
        const freshness = readFreshness(db, question.scope.siteIds);
        const maxSeq = freshness.projectedSeq;
        const pass = rawPass(db, toSelection(question), maxSeq, question.sinceMs);
        const goals = planGoals(db, question, maxSeq, pass);
        pass.run();
        return { ...goals(), freshness: toAnswerFreshness(freshness, caughtUp), computedFrom: 'events' as const };
      });
    },
  };
}
