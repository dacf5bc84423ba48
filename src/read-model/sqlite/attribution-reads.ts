// The attribution questions answered over the embedded database: the purchases of each range asked and their
// journeys (journeys.ts), every range in one read snapshot with its freshness.
import type { AttributionQuestions } from '../attribution-questions.ts';
import { readConversions } from './journeys.ts';
import { type SqliteReadOptions, toAnswerFreshness } from './report-reads.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';

export function createSqliteAttributionReads({ db, waitForProjection }: SqliteReadOptions): AttributionQuestions {
  return {
    async conversions(question) {
      // Touchpoints are visits and identities: derived data.
      const caughtUp = await waitForProjection();
      return inSnapshot(db, () => {
        const freshness = readFreshness(db, question.scope.siteIds);
        // Conversions up to the position: their visits are derived.
        const maxSeq = question.asOf ?? freshness.projectedSeq;
        const ranges = question.ranges.map((range) => readConversions(db, { siteIds: question.scope.siteIds, range, maxSeq, lookbackMs: question.lookbackMs }));
        return { asOf: maxSeq, ranges, freshness: toAnswerFreshness(freshness, caughtUp), computedFrom: 'event_log' as const };
      });
    },
  };
}
