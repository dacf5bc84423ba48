// The funnel questions answered over the embedded database: a population read column by column into typed arrays
// (funnel-population.ts), and the panels' reads around the attempts of its people (attempt-events.ts), each in one
// read snapshot with its freshness.
import type { FunnelQuestions } from '../funnel-questions.ts';
import { readAttempts } from './attempt-events.ts';
import { readFunnelPopulation } from './funnel-population.ts';
import { type SqliteReadOptions, toAnswerFreshness } from './report-reads.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';

export function createSqliteFunnelReads({ db, waitForProjection }: SqliteReadOptions): FunnelQuestions {
  return {
    async funnelPopulation(question) {
      // The people are counted through the identity bindings: derived data.
      const caughtUp = await waitForProjection();
      return inSnapshot(db, () => {
        // The position first: a new execution's watermark, and what bindings past an earlier one are taken back from.
        const freshness = readFreshness(db, question.scope.siteIds);
        const watermarkSeq = question.asOf ?? freshness.projectedSeq;
        const population = readFunnelPopulation(db, { question, watermarkSeq, projectedSeq: freshness.projectedSeq });
        return { asOf: watermarkSeq, ...population, freshness: toAnswerFreshness(freshness, caughtUp), computedFrom: 'event_log' as const };
      });
    },

    async attempts(question) {
      const caughtUp = await waitForProjection();
      return inSnapshot(db, () => {
        const freshness = readFreshness(db, question.scope.siteIds);
        const attempts = readAttempts(db, question, freshness.projectedSeq);
        return { attempts, freshness: toAnswerFreshness(freshness, caughtUp), computedFrom: 'event_log' as const };
      });
    },
  };
}
