// What a site's retention period changes for reads over ClickHouse. The embedded purge keeps the rollups of the days
// it removed (their unfiltered reports keep their numbers) while ClickHouse, like the embedded log, drops those days'
// events; so a report question whose range reaches a purged day is answered by the embedded read model, which has
// both. So is one starting on the first kept day: a visit across the cut keeps, in ClickHouse (and in the embedded
// rollups), the source and entry of its purged first event, while the embedded raw reads derive it again from the
// events left (docs/clickhouse.md, "Retention"). Every ClickHouse answer carries the embedded freshness's
// rawEventsFromDay (the first day whose raw events are all kept), as the SQLite implementation's answers do.
import type { Db } from '../../db/open.ts';
import { purgedBeforeDay } from '../../projector/queries/retention-rows.ts';
import type { ReportRange } from '../../vocabulary/report-filters.ts';
import type { ReadScope } from '../questions.ts';

/** The latest first kept day of the sites' retention purges, or undefined when none removed anything. */
export function rawEventsFromDayOf(db: Db, siteIds: readonly string[]): number | undefined {
  let latest: number | undefined;
  for (const siteId of siteIds) {
    const day = purgedBeforeDay(db, siteId);
    if (day !== undefined && (latest === undefined || day > latest)) latest = day;
  }
  return latest;
}

type ScopedQuestion = { scope: ReadScope; range?: ReportRange };
type Questions = Record<string, (question: never) => Promise<unknown>>;

/**
 * The questions, each answer's freshness given the scope's rawEventsFromDay, and each question whose range starts
 * on or before it (when `embedded` is given) asked of the embedded read model instead.
 */
export function withRetainedDays<Family extends object>(db: Db, questions: Family, embedded?: Family): Family {
  const wrapped: Record<string, unknown> = {};
  for (const [name, ask] of Object.entries(questions as Questions)) {
    wrapped[name] = async (question: ScopedQuestion) => {
      const fromDay = rawEventsFromDayOf(db, question.scope.siteIds);
      if (embedded && fromDay !== undefined && question.range !== undefined && question.range.fromDay <= fromDay) {
        return (embedded as Questions)[name]!(question as never);
      }
      const answer = (await ask(question as never)) as { freshness?: { rawEventsFromDay: number | undefined } };
      return answer.freshness ? { ...answer, freshness: { ...answer.freshness, rawEventsFromDay: fromDay } } : answer;
    };
  }
  return wrapped as Family;
}
