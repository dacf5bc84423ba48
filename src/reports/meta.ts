// Builds the meta of a V2 answer (CONTRACT section 5): what was applied, how fresh and complete it is, and the
// paging state.
import { toIso } from '../clock.ts';
import type { ReportMeta } from './answers.ts';
import { appliedFilters, type CommonParams } from './params.ts';
import { dayOf } from '../projector/periods.ts';
import type { ReportScope } from './scope.ts';

export interface MetaInput {
  scope: ReportScope;
  params: CommonParams;
  measures: Record<string, string>;
  /** Newest commit time of the scope's events (epoch ms), or null. */
  watermarkMs: number | null;
  computedFrom: 'rollups' | 'events' | 'event_log';
  truncated: boolean;
  nextCursor: string | null;
  limit: number | null;
  now: number;
}

export function buildMeta(input: MetaInput): ReportMeta {
  const today = dayOf(input.now);
  const warnings: string[] = [];
  if (input.computedFrom === 'events') {
    warnings.push('These filters combine dimensions that no rollup carries together: the answer was computed from raw events.');
  }
  if (input.params.range.toDay > today) warnings.push('The range ends after the current UTC day.');
  return {
    scope: input.scope.meta,
    range: { from: input.params.from, to: input.params.to },
    timezone: 'UTC',
    filters: appliedFilters(input.params) as ReportMeta['filters'],
    measures: input.measures,
    freshness: { watermark: input.watermarkMs === null ? null : toIso(input.watermarkMs) },
    completeness:
      input.params.range.toDay < today
        ? { complete: true }
        : { complete: false, reason: 'The range includes the current UTC day: events are still arriving.' },
    warnings,
    truncated: input.truncated,
    cursor: { next: input.nextCursor },
    limit: input.limit,
    computed_from: input.computedFrom,
  };
}

/** A fraction rounded to 4 decimals (0 when there is nothing to divide). */
export function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}

/** Average seconds from a sum of milliseconds, to one decimal. */
export function averageSeconds(totalMs: number, count: number): number {
  return count === 0 ? 0 : Math.round(totalMs / count / 100) / 10;
}
