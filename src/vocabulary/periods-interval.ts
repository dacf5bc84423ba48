// The intervals of a report's series (summary-v2 `interval`, CONTRACT section 10): UTC hours, days, ISO weeks
// (Monday) and calendar months, cut to the range, so every point of a series lies inside it.
import { dayMs, firstDayOfMonth, monthOfDay } from './periods.ts';
import type { ReportRange } from './report-filters.ts';

export const intervals = ['hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof intervals)[number];

export const hourMs = 3_600_000;

/**
 * The most points a series may have: 31 days of hours. An hourly series is counted from raw events, so its range is
 * bounded like this; a daily one is bounded by the range limit (367 days) already.
 */
export const maxSeriesPoints = 744;

/** The interval a series takes when none is asked: hours for a range of one day, days otherwise. */
export function defaultInterval(range: ReportRange): Interval {
  return range.fromDay === range.toDay ? 'hour' : 'day';
}

/** The day number of the Monday of a day's ISO week (1970-01-01, day 0, was a Thursday). */
function mondayOf(day: number): number {
  return day - ((day + 3) % 7);
}

/** The start (epoch ms) of the interval holding `ms`, not before the range's first day. */
export function intervalStartOf(ms: number, interval: Interval, range: ReportRange): number {
  const day = Math.floor(ms / dayMs);
  let start: number;
  if (interval === 'hour') return Math.floor(ms / hourMs) * hourMs;
  if (interval === 'day') start = day;
  else if (interval === 'week') start = mondayOf(day);
  else start = firstDayOfMonth(monthOfDay(day));
  return Math.max(start, range.fromDay) * dayMs;
}

/**
 * The starts (epoch ms) of a range's intervals, oldest first; a week or month cut by the range starts on its first
 * day inside it.
 * @example intervalStarts({ fromDay: 20420, toDay: 20420 }, 'hour').length // 24
 */
export function intervalStarts(range: ReportRange, interval: Interval): number[] {
  const starts: number[] = [];
  const endMs = (range.toDay + 1) * dayMs;
  if (interval === 'hour') {
    for (let ms = range.fromDay * dayMs; ms < endMs; ms += hourMs) starts.push(ms);
    return starts;
  }
  for (let day = range.fromDay; day <= range.toDay; day++) {
    const start = intervalStartOf(day * dayMs, interval, range);
    if (starts[starts.length - 1] !== start) starts.push(start);
  }
  return starts;
}

/** How many points a series of the range has, without listing them. */
export function seriesLength(range: ReportRange, interval: Interval): number {
  const days = range.toDay - range.fromDay + 1;
  return interval === 'hour' ? days * 24 : intervalStarts(range, interval).length;
}

/** A point's date as answers show it: the ISO hour (2026-11-27T13:00:00Z) for hours, YYYY-MM-DD otherwise. */
export function intervalLabel(startMs: number, interval: Interval): string {
  const iso = new Date(startMs).toISOString();
  return interval === 'hour' ? `${iso.slice(0, 13)}:00:00Z` : iso.slice(0, 10);
}
