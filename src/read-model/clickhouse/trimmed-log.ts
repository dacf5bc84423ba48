// What trimming the SQLite log (LOG_RETAIN_DAYS) changes for the questions the embedded read model still answers
// with ClickHouse configured (docs/clickhouse.md, "Which reads stay in SQLite"): those it answers from raw events
// (a series cut at a moment, a goal filter, a filtered report or journeys over a retention cut) would count only what
// the log kept. A question whose range reaches the trimmed days is refused clearly instead (400 range_too_large,
// naming the first day it can answer), never answered with a partial figure. "Reaches" includes the first kept day:
// a visit crossing the cut was derived with its trimmed first event, which raw reads could not see any more.
import { ApiError } from '../../http/errors.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import type { ReportRange } from '../../vocabulary/report-filters.ts';

/** The last day the log may have been trimmed of (events of later days are all kept), or undefined: no trimming. */
export type TrimmedThroughDay = () => number | undefined;

type RangedQuestion = { range?: ReportRange; sinceMs?: number };
type Questions = Record<string, (question: never) => Promise<unknown>>;

/**
 * Whether the question reads days the log may have lost.
 * @example reachesTrimmedDays({ range: { fromDay: 20_500, toDay: 20_530 } }, 20_510) // true
 */
export function reachesTrimmedDays(question: RangedQuestion, trimmedThroughDay: number | undefined): boolean {
  if (trimmedThroughDay === undefined) return false;
  const fromDay = question.sinceMs !== undefined ? Math.floor(question.sinceMs / dayMs) : question.range?.fromDay;
  return fromDay !== undefined && fromDay <= trimmedThroughDay + 1;
}

function refusal(trimmedThroughDay: number): ApiError {
  const firstDay = new Date((trimmedThroughDay + 2) * dayMs).toISOString().slice(0, 10);
  return new ApiError(
    400,
    'range_too_large',
    `This question is answered from the embedded event log, which keeps only the last days (LOG_RETAIN_DAYS; older events are in ClickHouse, which does not answer it yet): choose a range from ${firstDay}`,
    [{ path: '/from', message: `must be ${firstDay} or later for this question` }],
  );
}

/**
 * The embedded questions, each refused when its range reaches the trimmed days; `readsRawEvents` says which
 * questions need the raw log (default all; unfiltered reports read the rollups, which trimming keeps).
 */
export function refusingTrimmedDays<Family extends object>(trimmedThroughDay: TrimmedThroughDay, questions: Family, readsRawEvents: (name: string, question: never) => boolean = () => true): Family {
  const wrapped: Record<string, unknown> = {};
  for (const [name, ask] of Object.entries(questions as Questions)) {
    wrapped[name] = async (question: RangedQuestion) => {
      const through = trimmedThroughDay();
      if (reachesTrimmedDays(question, through) && readsRawEvents(name, question as never)) throw refusal(through!);
      return ask(question as never);
    };
  }
  return wrapped as Family;
}
