// What a report asks the rollups (or the raw fallback) for: a selection of visits and events by filters, totals
// grouped by nothing, by day or by a dimension's values, and exact visitor counts for the groups it shows.
import type { Counters } from '../../rollup-format/counter-shard.ts';
import type { Dim } from '../../vocabulary/dimensions.ts';
import type { ReportFilters, ReportRange } from '../../vocabulary/report-filters.ts';


/**
 * keyOf: the group a dimension's value counts in, when values are grouped (sources by their group, source-groups.ts):
 * a group's counters are its values' sums and its visitors the union of theirs, so they stay exact.
 */
export type Grouping = { by: 'all' } | { by: 'day' } | { by: 'value'; dim: Dim; keyOf?: (value: string) => string };

export interface GroupTotals {
  /** Every counter but `visitors` (see visitorsOf). */
  counters: Counters;
  /** Revenue by currency, in minor units (campaigns). */
  revenue: Map<string, number>;
}

export interface GroupedReport {
  /** Group key ('' for all, the day number for days, the value for dimension values) → totals. */
  totals: Map<string, GroupTotals>;
  /** Exact distinct visitors of the given groups (computed only for what a report shows). */
  visitorsOf(keys: readonly string[]): Map<string, number>;
  /** Where the numbers came from. */
  computedFrom: 'rollups' | 'events';
}


export interface ReportSelection {
  siteIds: readonly string[];
  workspaceId: string;
  range: ReportRange;
  filters: ReportFilters;
  withInternal: boolean;
}
