// The goal questions over the embedded database, exactly from raw events: the selection's visits (visit filters by
// their first event, the goal filter by what they did), then each goal's converting events in the range that pass
// the path filter. The denominator is the selection's visitors as summary counts them, in the same snapshot.
import type { GoalQuestions, GoalFigures } from '../goal-questions.ts';
import { dayOf } from '../../vocabulary/periods.ts';
import { convertedVisits, convertingSeqs } from './goal-conversions.ts';
import { groupedReport } from './grouped-report.ts';
import { matchesVisitFilters } from './raw-grouped.ts';
import { loadRawVisits } from './raw-visits.ts';
import { cachedRawVisits } from './raw-visits-cache.ts';
import { toAnswerFreshness, type SqliteReadOptions } from './report-reads.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';

export function createSqliteGoalReads({ db, waitForProjection }: SqliteReadOptions): GoalQuestions {
  return {
    async goals(question) {
      const caughtUp = await waitForProjection();
      return inSnapshot(db, () => {
        const freshness = readFreshness(db, question.scope.siteIds);
        const maxSeq = freshness.projectedSeq;
        const { siteIds } = question.scope;
        const selection = { siteIds, workspaceId: question.scope.workspaceId, range: question.range, filters: question.filters, withInternal: question.withInternal };
        const whole = groupedReport(db, { selection, grouping: { by: 'all' }, currentSeq: maxSeq, sinceMs: question.sinceMs });
        const visitors = whole.visitorsOf(['']).get('')!;
        // A site without goals has nothing to find in its raw events: a dashboard's Goals panel costs one rollup read.
        if (question.goals.length === 0) return { visitors, goals: [], freshness: toAnswerFreshness(freshness, caughtUp), computedFrom: 'events' as const };
        // The same raw visits the dashboard's other filtered reports read at once (raw-visits-cache.ts).
        const input = { siteIds, fromDay: question.range.fromDay, toDay: question.range.toDay, withInternal: question.withInternal, maxSeq };
        let visits = cachedRawVisits(db, input, () => loadRawVisits(db, input));
        visits = visits.filter((visit) => matchesVisitFilters(visit.entry, question.filters));
        if (question.filters.goal) visits = convertedVisits(db, siteIds, visits, question.filters.goal.rule, maxSeq);
        const paths = question.filters.path;
        const sinceMs = question.sinceMs ?? -Infinity;
        const inRange = (ts: number) => ts >= sinceMs && dayOf(ts) >= question.range.fromDay && dayOf(ts) <= question.range.toDay;
        const goals: GoalFigures[] = question.goals.map(({ id, rule }) => {
          const seqs = convertingSeqs(db, siteIds, visits, rule, maxSeq);
          const people = new Set<string>();
          const revenue = new Map<string, number>();
          let conversions = 0;
          for (const visit of visits) {
            for (const event of visit.events) {
              if (!seqs.has(event.seq) || !inRange(event.ts) || (paths && (event.path === null || !paths.includes(event.path)))) continue;
              conversions++;
              people.add(visit.anon_id);
              if (event.revenue_minor !== null && event.revenue_currency !== null) {
                revenue.set(event.revenue_currency, (revenue.get(event.revenue_currency) ?? 0) + event.revenue_minor);
              }
            }
          }
          for (const [currency, amount] of revenue) if (amount === 0) revenue.delete(currency);
          return { id, visitors: people.size, conversions, revenue };
        });
        return { visitors, goals, freshness: toAnswerFreshness(freshness, caughtUp), computedFrom: 'events' as const };
      });
    },
  };
}
