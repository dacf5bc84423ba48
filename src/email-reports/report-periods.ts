// Which period a report covers (UTC, docs/email.md "Schedule"): a weekly report is due on Monday 00:00 and covers the
// seven days before (Monday to Sunday); a monthly one is due on the 1st 00:00 and covers the month before. Each is
// compared with the period of the same length just before it.
import { dayOf, firstDayOfMonth, monthOfDay, toDateText } from '../vocabulary/periods.ts';
import type { ReportRange } from '../vocabulary/report-filters.ts';
import type { Frequency } from './queries/subscription-rows.ts';

export interface ReportPeriod {
  frequency: Frequency;
  /** The day (since the epoch) the report became due, at 00:00 UTC: its period key. */
  dueDay: number;
  range: ReportRange;
  previous: ReportRange;
}

/** The period whose report became due most recently at or before `now` (epoch ms). @example duePeriodOf('weekly', Date.parse('2026-03-04T10:00:00Z')).range // 2026-02-23..2026-03-01 */
export function duePeriodOf(frequency: Frequency, now: number): ReportPeriod {
  const today = dayOf(now);
  if (frequency === 'weekly') {
    // Day 0 (1970-01-01) was a Thursday: (day + 3) % 7 is 0 on Mondays.
    const dueDay = today - ((today + 3) % 7);
    return { frequency, dueDay, range: { fromDay: dueDay - 7, toDay: dueDay - 1 }, previous: { fromDay: dueDay - 14, toDay: dueDay - 8 } };
  }
  const month = monthOfDay(today);
  const dueDay = firstDayOfMonth(month);
  const fromDay = firstDayOfMonth(month - 1);
  return { frequency, dueDay, range: { fromDay, toDay: dueDay - 1 }, previous: { fromDay: firstDayOfMonth(month - 2), toDay: fromDay - 1 } };
}

/** The outbox id of a subscription's report for a period: claiming it twice inserts nothing. */
export function periodKeyOf(subscriptionId: string, period: ReportPeriod): string {
  return `report:${subscriptionId}:${toDateText(period.dueDay)}`;
}
