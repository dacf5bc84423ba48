// Builds the meta of a V2 answer (CONTRACT section 5): what was applied, how fresh and complete it is, and the
// paging state.
import { toIso } from '../clock.ts';
import type { ReportMeta } from './meta-answer.ts';
import { appliedFilters, type CommonParams } from './common-params.ts';
import { dayOf, toDateText } from '../vocabulary/periods.ts';
import type { ReportScope } from './scope.ts';

export interface MetaFreshness {
  watermarkMs: number | null;
  projectedThroughMs: number | null;
  rawEventsFromDay?: number | undefined;
}

export interface MetaInput {
  scope: ReportScope;
  params: CommonParams;
  measures: Record<string, string>;
  /** Receive times (epoch ms) of the newest stored and counted events, and the first day raw events are kept from. */
  freshness: MetaFreshness;
  /**
   * False when the read waited for the projector and the wait ran out before it passed every event committed
   * before the request: the answer is as of the projector's position (meta.freshness.projected_through).
   */
  caughtUp: boolean;
  computedFrom: 'rollups' | 'events' | 'event_log';
  truncated: boolean;
  nextCursor: string | null;
  limit: number | null;
  now: number;
  /** Imported daily figures were added (docs/import-export.md): their visitors are sums over days. */
  imported?: boolean;
}

export function buildMeta(input: MetaInput): ReportMeta {
  const today = dayOf(input.now);
  const warnings: string[] = [];
  if (input.computedFrom === 'events') {
    warnings.push('These filters combine dimensions that no rollup carries together: the answer was computed from raw events.');
  }
  if (input.params.range.toDay > today) warnings.push('The range ends after the current UTC day.');
  const purgedBefore = input.freshness.rawEventsFromDay;
  if (input.computedFrom !== 'rollups' && purgedBefore !== undefined && input.params.range.fromDay < purgedBefore) {
    warnings.push(`Raw events before ${toDateText(purgedBefore)} were deleted by the site's retention period: this answer, computed from raw events, does not count them.`);
  }
  if (!input.caughtUp) {
    warnings.push('Events committed before this request are not all counted yet: the answer is as of freshness.projected_through.');
  }
  return {
    scope: input.scope.meta,
    range: { from: input.params.from, to: input.params.to },
    timezone: 'UTC',
    filters: appliedFilters(input.params) as ReportMeta['filters'],
    measures: input.measures,
    freshness: toFreshness(input.freshness),
    completeness: toCompleteness(input.caughtUp, input.params.range.toDay, today),
    warnings,
    truncated: input.truncated,
    cursor: { next: input.nextCursor },
    limit: input.limit,
    computed_from: input.computedFrom,
    ...(input.imported && { imported: true as const, inexact: ['visitors'] }),
  };
}

/**
 * meta.completeness of an answer whose range ends on `toDay` (days since the epoch, UTC), read on `today`.
 * @example toCompleteness(false, 20600, 20610) // { complete: false, reason: 'projection_lag' }
 */
export function toCompleteness(caughtUp: boolean, toDay: number, today: number): ReportMeta['completeness'] {
  if (!caughtUp) return { complete: false, reason: 'projection_lag' };
  return toDay < today ? { complete: true } : { complete: false, reason: 'The range includes the current UTC day: events are still arriving.' };
}

/**
 * meta.freshness from a snapshot's freshness (epoch ms, null when the scope has no event).
 * @example toFreshness({ watermarkMs: 0, projectedThroughMs: null }) // { watermark: '1970-01-01T00:00:00.000Z', projected_through: null }
 */
export function toFreshness(freshness: MetaFreshness): ReportMeta['freshness'] {
  return { watermark: isoOrNull(freshness.watermarkMs), projected_through: isoOrNull(freshness.projectedThroughMs) };
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : toIso(ms);
}

/** A fraction rounded to 4 decimals (0 when there is nothing to divide). */
export function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}

/** Average seconds from a sum of milliseconds, to one decimal. */
export function averageSeconds(totalMs: number, count: number): number {
  return count === 0 ? 0 : Math.round(totalMs / count / 100) / 10;
}
