// Small statistics of the analysis answers: ratios, medians and percentiles of durations.

/** A fraction rounded to 4 decimals (0 when there is nothing to divide). @example ratio(1, 3) // 0.3333 */
export function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}

/**
 * The median of durations in ms, as seconds to 3 decimals (the mean of the two middle values for an even count); null when empty.
 * @example medianSeconds([1000, 3000]) // 2
 */
export function medianSeconds(durationsMs: readonly number[]): number | null {
  if (durationsMs.length === 0) return null;
  // A typed array sorts numerically, several times faster than a comparator (a funnel step has one per person).
  const sorted = Float64Array.from(durationsMs).sort();
  const middle = sorted.length >> 1;
  const ms = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return Math.round(ms) / 1000;
}

/**
 * The nearest-rank percentile (0 < p <= 100) of durations in ms, as seconds; null when empty.
 * @example percentileSeconds([1000, 2000, 3000], 50) // 2
 */
export function percentileSeconds(durationsMs: readonly number[], p: number): number | null {
  if (durationsMs.length === 0) return null;
  const sorted = Float64Array.from(durationsMs).sort();
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]! / 1000;
}
