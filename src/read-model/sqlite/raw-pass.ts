// One read of a selection's raw visits for every question that needs them (a dashboard's rankings, its series and
// its goals): each question asks the pass for its raw groupings (and a goal counter its visits) before it runs, then
// reads its groups after. However many ask, the range's raw events are read once and each visit's filters worked
// out once per kind of visits (a filter click used to read them once per panel's question).
import type { Db } from '../../db/open.ts';
import type { ReportSelection } from './grouping.ts';
import { needsQuery, passRawVisits } from './grouped-report.ts';
import { type RawGroup, type RawGrouping, rawGrouper } from './raw-grouped.ts';
import type { RawVisit } from './raw-visits.ts';

export interface RawPass {
  /**
   * A raw grouping of the pass, counted over the visits a goal filter keeps (withGoal), or over every visit (the raw
   * series, which never applied one); its groups, once the pass has run.
   */
  group(grouping: RawGrouping, withGoal: boolean): () => Map<string, RawGroup>;
  /** Hands the pass's visits a goal filter keeps to `take` as well (goals' counter). */
  takeSelected(take: (visit: RawVisit) => void): void;
  /** Reads the raw visits once for everything asked (nothing when nothing was). */
  run(): void;
}

/**
 * sinceMs: a rolling window for every grouping of the pass (as rawGrouper's).
 * @example const pass = rawPass(db, selection, maxSeq); const byDay = pass.group({ by: 'day' }, true); pass.run(); byDay();
 */
export function rawPass(db: Db, selection: ReportSelection, maxSeq: number, sinceMs?: number): RawPass {
  const asked: { grouping: RawGrouping; withGoal: boolean }[] = [];
  const takers: ((visit: RawVisit) => void)[] = [];
  let groups: Map<string, RawGroup>[] | undefined;
  return {
    group(grouping, withGoal) {
      const index = asked.push({ grouping, withGoal }) - 1;
      return () => {
        if (!groups) throw new Error('a raw pass is read after it runs');
        return groups[index]!;
      };
    },
    takeSelected(take) {
      takers.push(take);
    },
    run() {
      if (asked.length === 0 && takers.length === 0) return;
      const { range, filters } = selection;
      // Without a goal filter both kinds of groupings count the same visits: one grouper takes them all.
      const hasGoal = filters.goal !== undefined;
      const selectedAsks = asked.filter((ask) => ask.withGoal || !hasGoal);
      const allAsks = hasGoal ? asked.filter((ask) => !ask.withGoal) : [];
      const selectedGrouper = rawGrouper(range, filters, selectedAsks.map((ask) => ask.grouping), sinceMs);
      const allGrouper = rawGrouper(range, filters, allAsks.map((ask) => ask.grouping), sinceMs);
      const selected = (visit: RawVisit) => {
        if (selectedAsks.length > 0) selectedGrouper.add(visit);
        for (const take of takers) take(visit);
      };
      // A goal filter makes the visits be loaded together (which converted): only when something counts them.
      const takesSelected = selectedAsks.length > 0 || takers.length > 0;
      passRawVisits(
        db,
        selection,
        maxSeq,
        { ...(takesSelected && { selected }), ...(allAsks.length > 0 && { all: allGrouper.add }) },
        { withQuery: needsQuery(asked.map((ask) => ask.grouping)) },
      );
      const selectedGroups = selectedGrouper.groups();
      const allGroups = allGrouper.groups();
      groups = asked.map((ask) => (selectedAsks.includes(ask) ? selectedGroups[selectedAsks.indexOf(ask)]! : allGroups[allAsks.indexOf(ask)]!));
    },
  };
}
