// The meta of an analysis answer (CONTRACT section 5), as the reports build theirs: scope, range, the filters
// applied (with the funnel's own choices), freshness as of the execution, completeness and warnings.
import { toIso } from '../clock.ts';
import { appliedFilters } from '../reading/common-params.ts';
import { dayMs, dayOf } from '../vocabulary/periods.ts';
import type { ReportMeta } from '../reading/meta-answer.ts';
import type { AnalysisScope } from './analysis-scope.ts';
import type { Execution } from './execution.ts';
import type { FunnelQuery } from './funnel-query.ts';

export interface AnalysisMetaInput {
  scope: AnalysisScope;
  query: FunnelQuery;
  execution: Execution;
  measures: Record<string, string>;
  truncated: boolean;
  now: number;
  /** Extra warnings (e.g. the projector is behind the execution's watermark). */
  warnings?: string[];
}

/**
 * @example buildAnalysisMeta({ scope, query, execution, measures: funnelMeasures, truncated: false, now: clock.now() })
 */
export function buildAnalysisMeta(input: AnalysisMetaInput): ReportMeta {
  const { query, execution } = input;
  const today = dayOf(input.now);
  const warnings = [...(input.warnings ?? [])];
  // In first_step mode a later step may come up to the window after the range: events still arriving can count.
  const lastDayRead = query.dateMode === 'first_step' ? dayOf((query.range.toDay + 1) * dayMs + query.windowMs - 1) : query.range.toDay;
  if (lastDayRead >= today) warnings.push('The events read (the range, plus the window in first_step mode) reach the current UTC day: events are still arriving.');
  if (!execution.caughtUp) {
    warnings.push('Events committed before the execution were not all projected yet: it counts up to freshness.projected_through.');
  }
  const iso = (ms: number | null) => (ms === null ? null : toIso(ms));
  return {
    scope: input.scope.meta,
    range: { from: query.from, to: query.to },
    timezone: 'UTC',
    filters: {
      ...(appliedFilters(query) as Record<string, string | string[]>),
      date_mode: query.dateMode,
      window: `${query.window.value} ${query.window.unit}`,
      ...(query.breakdown ? { breakdown: query.breakdown } : {}),
    },
    measures: input.measures,
    freshness: { watermark: iso(execution.watermarkMs), projected_through: iso(execution.projectedThroughMs) },
    completeness: !execution.caughtUp
      ? { complete: false, reason: 'projection_lag' }
      : warnings.length === 0
        ? { complete: true }
        : { complete: false, reason: warnings[0]! },
    warnings,
    truncated: input.truncated,
    cursor: { next: null },
    limit: null,
    computed_from: 'event_log',
  };
}
