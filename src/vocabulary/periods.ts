// UTC days and months as integers, the two grains rollups are kept at, and the cover of a day range by months and
// days (a year-long report reads 12 months and a few days instead of 365 days).

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

export interface PeriodRun {
  grain: Grain;
  from: number;
  to: number;
}

/** A run of periods counted with a sign: a month minus some of its days reads two shard sets instead of 30. */
export interface SignedRun extends PeriodRun {
  sign: 1 | -1;
}

/**
 * Covers [fromDay, toDay] exactly, with few shard reads: whole calendar months as months; a month more than half
 * inside the range as the month minus the days outside it; the rest as days. Counters are sums, so the signed
 * total is exact (visitor sets are not: they are unioned over the range's own days).
 * @example signedCover(20363, 20392) // Oct 2-31 → [{ month Oct, sign 1 }, { day Oct 1, sign -1 }]
 */
export function signedCover(fromDay: number, toDay: number): SignedRun[] {
  const added: Period[] = [];
  const taken: Period[] = [];
  for (let day = fromDay; day <= toDay; ) {
    const month = monthOfDay(day);
    const first = firstDayOfMonth(month);
    const last = lastDayOfMonth(month);
    const end = Math.min(last, toDay);
    const inside = end - day + 1;
    if (inside === last - first + 1 || inside * 2 > last - first + 1) {
      added.push({ grain: Grain.month, period: month });
      for (let outside = first; outside < day; outside++) taken.push({ grain: Grain.day, period: outside });
      for (let outside = end + 1; outside <= last; outside++) taken.push({ grain: Grain.day, period: outside });
    } else {
      for (let inRange = day; inRange <= end; inRange++) added.push({ grain: Grain.day, period: inRange });
    }
    day = end + 1;
  }
  return [...toRuns(added).map((run) => ({ ...run, sign: 1 as const })), ...toRuns(taken).map((run) => ({ ...run, sign: -1 as const }))];
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
