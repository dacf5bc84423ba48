// The dashboard question over the embedded database: the rankings, the series and the goals planned over one raw
// pass (raw-pass.ts) in one snapshot, each part exactly what its own question answers (planRankings, planSeries,
// planGoals are what rankings(), series() and goals() run alone). A filter no rollup carries reads the range's raw
// events once for the whole dashboard instead of once per question.
import type { DashboardQuestions } from '../dashboard-questions.ts';
import { planGoals } from './goal-reads.ts';
import { rawPass } from './raw-pass.ts';
import { answered, planRankings, type SqliteReadOptions, toAnswerFreshness, toSelection } from './report-reads.ts';
import { inSnapshot, readFreshness } from './snapshot.ts';
import { planSeries } from './time-reads.ts';

export function createSqliteDashboardReads({ db, waitForProjection }: SqliteReadOptions): DashboardQuestions {
  return {
    async dashboard(question) {
      const caughtUp = await waitForProjection();
      return inSnapshot(db, () => {
        const freshness = readFreshness(db, question.scope.siteIds);
        const currentSeq = freshness.projectedSeq;
        const pass = rawPass(db, toSelection(question), currentSeq, question.sinceMs);
        const rankings = planRankings(db, question, pass);
        const series = planSeries(db, question, currentSeq, pass);
        const goals = planGoals(db, question, currentSeq, pass);
        pass.run();
        const answers = rankings();
        const { computedFrom: seriesFrom, ...seriesFigures } = series();
        return answered(
          {
            rankings: answers,
            series: answered(seriesFigures, freshness, caughtUp, seriesFrom),
            goals: { ...goals(), freshness: toAnswerFreshness(freshness, caughtUp), computedFrom: 'events' as const },
          },
          freshness,
          caughtUp,
          answers.some((ranking) => ranking.computedFrom === 'events') ? 'events' : 'rollups',
        );
      });
    },
  };
}
