// Rows of a grouped report, ranked: by a measure descending, then by the group key ascending (a stable order).
import type { GroupedReport, GroupTotals } from './grouping.ts';
import type { Counters } from '../../rollup-format/counter-shard.ts';

export interface RankedRow {
  key: string;
  totals: GroupTotals;
}

export function rankRows(report: GroupedReport, keep: (counters: Counters) => boolean, rankField: number): RankedRow[] {
  return [...report.totals]
    .filter(([, totals]) => keep(totals.counters))
    .map(([key, totals]) => ({ key, totals }))
    .sort((a, b) => b.totals.counters[rankField]! - a.totals.counters[rankField]! || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
