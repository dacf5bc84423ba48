// A batch of rankings (ReportQuestions.rankings) answered by asking ranking() once per panel: for a read model whose
// engine answers each ranking cheaply on its own (ClickHouse's column scans), so a batch needs no scan of its own.
// Engine-free: it composes the model's own ranking() and keeps the oldest freshness of the answers.
import type { Answer, Freshness } from './questions.ts';
import type { RankingQuestion, RankingFigures, RankingsFigures, RankingsQuestion } from './report-questions.ts';

/** The freshness of answers read one after another: as of the oldest position, caught up only if each was. */
function oldestFreshness(all: readonly Freshness[]): Freshness {
  return all.reduce((oldest, next) => ({
    ...(next.position < oldest.position ? next : oldest),
    caughtUp: oldest.caughtUp && next.caughtUp,
  }));
}

/**
 * @example const rankings = composedRankings((question) => model.ranking(question));
 */
export function composedRankings(ranking: (question: RankingQuestion) => Promise<Answer<RankingFigures>>): (question: RankingsQuestion) => Promise<Answer<RankingsFigures>> {
  return async (question) => {
    const { rankings: asks, ...selection } = question;
    const answers = await Promise.all(asks.map((ask) => ranking({ ...selection, ...ask, offset: 0 })));
    if (answers.length === 0) throw new Error('a batch of rankings asks at least one');
    const rankings = answers.map(({ freshness: _freshness, ...figures }) => figures);
    return {
      rankings,
      freshness: oldestFreshness(answers.map((answer) => answer.freshness)),
      computedFrom: rankings.some((answer) => answer.computedFrom === 'events') ? 'events' : 'rollups',
    };
  };
}
