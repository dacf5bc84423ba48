// UTC days and months as integers, the two grains rollups are kept at, and the split of a day range into whole
// months and leftover days (a year-long report reads 12 months and a few days instead of 365 days).

export const dayMs = 86_400_000;

export const Grain = { day: 0, month: 1 } as const;
export type Grain = (typeof Grain)[keyof typeof Grain];

/** Days since 1970-01-01 (UTC) of an epoch-ms time. */
export function dayOf(ms: number): number {
  return Math.floor(ms / dayMs);
}

/** Months since 1970-01 of a day number. */
export function monthOfDay(day: number): number {
  const date = new Date(day * dayMs);
  return (date.getUTCFullYear() - 1970) * 12 + date.getUTCMonth();
}

export function firstDayOfMonth(month: number): number {
  return Math.round(Date.UTC(1970 + Math.floor(month / 12), ((month % 12) + 12) % 12, 1) / dayMs);
}

export function lastDayOfMonth(month: number): number {
  return firstDayOfMonth(month + 1) - 1;
}

/** YYYY-MM-DD of a day number. */
export function toDateText(day: number): string {
  return new Date(day * dayMs).toISOString().slice(0, 10);
}

/** The day number of a valid YYYY-MM-DD, or undefined. */
export function parseDateText(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const date = new Date(ms);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return ms / dayMs;
}

export interface Period {
  grain: Grain;
  period: number;
}

/** Start (inclusive) and end (exclusive) in epoch ms. */
export function periodBounds({ grain, period }: Period): { startMs: number; endMs: number } {
  if (grain === Grain.day) return { startMs: period * dayMs, endMs: (period + 1) * dayMs };
  return { startMs: firstDayOfMonth(period) * dayMs, endMs: (lastDayOfMonth(period) + 1) * dayMs };
}

/**
 * Covers [fromDay, toDay] exactly: whole calendar months as month periods, the rest as days.
 * @example coverRange(20089, 20453) // → [{ grain: 0, period: 20089 }, …, { grain: 1, period: 661 }, …]
 */
export function coverRange(fromDay: number, toDay: number): Period[] {
  const periods: Period[] = [];
  let day = fromDay;
  while (day <= toDay) {
    const month = monthOfDay(day);
    const first = firstDayOfMonth(month);
    const last = lastDayOfMonth(month);
    if (day === first && last <= toDay) {
      periods.push({ grain: Grain.month, period: month });
      day = last + 1;
    } else {
      periods.push({ grain: Grain.day, period: day });
      day++;
    }
  }
  return periods;
}

export interface PeriodRun {
  grain: Grain;
  from: number;
  to: number;
}

/** Consecutive periods of one grain as runs, so each run is one range query. */
export function toRuns(periods: readonly Period[]): PeriodRun[] {
  const runs: PeriodRun[] = [];
  for (const { grain, period } of periods) {
    const last = runs[runs.length - 1];
    if (last && last.grain === grain && last.to === period - 1) last.to = period;
    else runs.push({ grain, from: period, to: period });
  }
  return runs;
}
