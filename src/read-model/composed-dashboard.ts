// The dashboard question (DashboardQuestions) answered by asking rankings(), series() and goals() of the same model:
// for an engine that answers each cheaply on its own (ClickHouse's column scans). Engine-free.
import type { Answer } from './questions.ts';
import type { DashboardFigures, DashboardQuestion } from './dashboard-questions.ts';
import type { ReadModel } from './read-model.ts';

/**
 * @example const dashboard = composedDashboard({ rankings, series, goals });
 */
export function composedDashboard(model: Pick<ReadModel, 'rankings' | 'series' | 'goals'>): (question: DashboardQuestion) => Promise<Answer<DashboardFigures>> {
  return async (question) => {
    const { rankings: asks, interval, goals: goalFilters, sinceMs, ...selection } = question;
    const [batch, series, goals] = await Promise.all([
      model.rankings({ ...selection, rankings: asks, sinceMs }),
      model.series({ ...selection, interval, sinceMs }),
      model.goals({ ...selection, goals: goalFilters, sinceMs }),
    ]);
    return { ...batch, series, goals };
  };
}
