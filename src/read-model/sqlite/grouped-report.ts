// Answers a grouped report from the rollups when one rollup dimension carries the filters (no filter, or one
// filtered dimension), else exactly from raw events; either way as of the projector's position, so both kinds of
// answer count the same events. A paged report is pinned to its first page's position: the few visitors with
// events projected since are recomputed from raw events and their difference taken out.
import type { Db } from '../../db/open.ts';
import { Dim, visitDimByFilter } from '../../vocabulary/dimensions.ts';
import type { GroupedReport, GroupTotals, Grouping, ReportSelection } from './grouping.ts';
import type { ReportFilters } from '../../vocabulary/report-filters.ts';
import { listVisitorsNewerThan } from '../../event-store/queries/raw-window-events.ts';
import { type RawGroup, type RawGrouping, rawGrouper, toGroupedReport } from './raw-grouped.ts';
import { loadRawVisits, type RawVisit, streamRawVisits, visitBefore } from './raw-visits.ts';
import { countWindowEvents } from './queries/raw-window-stream.ts';
import { dayMs } from '../../vocabulary/periods.ts';
import { convertedVisits } from './goal-conversions.ts';
import { cachedRawVisits, maxCachedEvents } from './raw-visits-cache.ts';
import { emptyCounters, fieldCount } from '../../rollup-format/counter-shard.ts';
import { readRollups, type RollupRequest } from './rollup-grouped.ts';
import { narrowVisitsAnswer, streamNarrowVisits } from './narrow-visits.ts';
import { eventMatchesGoal, goalHasProps } from '../../vocabulary/goal-rule.ts';

export interface GroupedQuery {
  selection: ReportSelection;
  grouping: Grouping;
  /** The projector's position in the report's snapshot: the rollups count every event with seq <= it. */
  currentSeq: number;
  /** Answer as of this position (a later page of a paged report); defaults to currentSeq. */
  asOfSeq?: number;
  /**
   * Count only events from this time on (epoch ms), and visits starting from it on: a rolling window ("last 24
   * hours"), which rollups of whole days cannot answer, so the raw events do.
   */
  sinceMs?: number;
}

type FilterName = keyof ReportFilters;

function activeFilters(filters: ReportFilters): FilterName[] {
  return (Object.keys(filters) as FilterName[]).filter((name) => filters[name] !== undefined);
}

const pathPart = (page: string) => page.split('?', 1)[0]!;

/** The rollup read that answers the query, or undefined when only raw events can. */
export function planRollupRead(selection: ReportSelection, grouping: Grouping): RollupRequest | undefined {
  const filters = selection.filters;
  // A goal selects visits by what they did, which no rollup carries.
  if (filters.goal !== undefined) return undefined;
  const active = activeFilters(filters) as Exclude<FilterName, 'goal'>[];
  if (active.length > 1) return undefined;
  const [only] = active;
  const onlyDim = only === undefined ? undefined : only === 'path' ? Dim.path : visitDimByFilter[only];
  if (grouping.by !== 'value') {
    if (only === undefined) return { selection, dim: Dim.total, values: [''], grouping: grouping.by };
    return { selection, dim: onlyDim!, values: filters[only]!, grouping: grouping.by };
  }
  const keyOf = grouping.keyOf;
  if (only === undefined) return { selection, dim: grouping.dim, grouping: 'value', keyOf };
  if (grouping.dim === Dim.page && only === 'path') {
    const paths = new Set(filters.path);
    return { selection, dim: Dim.page, valueTest: (page) => paths.has(pathPart(page)), grouping: 'value' };
  }
  if (onlyDim === grouping.dim) return { selection, dim: grouping.dim, values: filters[only]!, grouping: 'value', keyOf };
  return undefined;
}

/** The selection's raw visits (a goal filter keeps those that converted), as of maxSeq. */
function selectedRawVisits(db: Db, selection: ReportSelection, maxSeq: number, visitors?: Map<string, string[]>) {
  const input = { siteIds: selection.siteIds, fromDay: selection.range.fromDay, toDay: selection.range.toDay, withInternal: selection.withInternal, maxSeq, visitors };
  const visits = cachedRawVisits(db, input, () => loadRawVisits(db, input));
  const goal = selection.filters.goal;
  return goal ? convertedVisits(db, selection.siteIds, visits, goal.rule, maxSeq) : visits;
}

function rawReport(db: Db, selection: ReportSelection, grouping: Grouping, maxSeq: number, visitors?: Map<string, string[]>, sinceMs?: number) {
  return rawGroupsOf(db, selection, maxSeq, [grouping], sinceMs, visitors)[0]!;
}

/** Whether the selection's window (its range and a day each side, as a load reads it) holds more events than a cache entry may. */
function isLargeWindow(db: Db, selection: ReportSelection): boolean {
  const window = { start_ms: (selection.range.fromDay - 1) * dayMs, end_ms: (selection.range.toDay + 2) * dayMs };
  let events = 0;
  for (const siteId of selection.siteIds) events += countWindowEvents(db, { ...window, site_id: siteId });
  return events > maxCachedEvents;
}

/**
 * The selection's raw visits grouped: a window too large to keep (a month of a 10M-event site) is streamed, its
 * visits grouped as they are cut and let go; a smaller one is loaded (and kept for the next report, raw-visits-cache.ts).
 * A goal filter needs the visits together (which converted), and a visitor restriction is small: both are loaded.
 */
function rawGroupsOf(db: Db, selection: ReportSelection, maxSeq: number, groupings: readonly Grouping[], sinceMs?: number, visitors?: Map<string, string[]>): Map<string, RawGroup>[] {
  return rawGroupsCut(db, selection, maxSeq, groupings, { sinceMs, visitors, withGoal: true });
}

/**
 * rawGroupsOf with a moment to cut the visits at (untilMs: a partial period's comparison, visitBefore), for any raw
 * grouping. withGoal false leaves a goal filter out (the raw series never applied one).
 */
export function rawGroupsCut(
  db: Db,
  selection: ReportSelection,
  maxSeq: number,
  groupings: readonly RawGrouping[],
  options: { sinceMs?: number; untilMs?: number; visitors?: Map<string, string[]>; withGoal: boolean },
): Map<string, RawGroup>[] {
  const grouper = rawGrouper(selection.range, selection.filters, groupings, options.sinceMs);
  const takers = options.withGoal ? { selected: grouper.add } : { all: grouper.add };
  passRawVisits(db, selection, maxSeq, takers, { untilMs: options.untilMs, visitors: options.visitors, withQuery: needsQuery(groupings) });
  return grouper.groups();
}

/** Whether a grouping reads the query string (pages with their query, include_params). */
export const needsQuery = (groupings: readonly RawGrouping[]) => groupings.some((grouping) => grouping.by === 'value' && grouping.dim === Dim.page);

/**
 * Who takes the raw visits of one pass: `all`, every visit of the window; `selected`, those a goal filter keeps (the
 * same visits without one). Each taker still applies the other filters itself (rawGrouper does).
 */
export interface RawVisitTakers {
  all?: (visit: RawVisit) => void;
  selected?: (visit: RawVisit) => void;
}

/**
 * One read of the selection's raw visits, each handed to its takers: a window too large to keep (a month of a
 * 10M-event site) is streamed, its visits handed over as they are cut and let go; a smaller one is loaded (and kept
 * for the next report, raw-visits-cache.ts). A goal filter for `selected` needs the visits together (which
 * converted), and a visitor restriction is small: both are loaded. untilMs cuts each visit at that moment first.
 * withQuery: the query string of each event (streamed rows parse it from raw only when asked). Without it (nor a
 * goal filter with props), and as of the projector's position, the projector's narrow rows answer instead of the
 * event log (narrow-visits.ts).
 */
export function passRawVisits(
  db: Db,
  selection: ReportSelection,
  maxSeq: number,
  takers: RawVisitTakers,
  options: { untilMs?: number; visitors?: Map<string, string[]>; withQuery: boolean },
): void {
  const { untilMs } = options;
  const cut = (take: ((visit: RawVisit) => void) | undefined) =>
    take === undefined || untilMs === undefined ? take : (visit: RawVisit) => {
      const before = visitBefore(visit, untilMs);
      if (before) take(before);
    };
  const all = cut(takers.all);
  const selected = cut(takers.selected);
  const goal = selected ? selection.filters.goal : undefined;
  const input = { siteIds: selection.siteIds, fromDay: selection.range.fromDay, toDay: selection.range.toDay, withInternal: selection.withInternal, maxSeq };
  // The projector's narrow rows stand in for the raw events wherever they hold all a reader needs (narrow-visits.ts):
  // one row per visit instead of its wide events, so rankings, series, comparison and goals all read them.
  if (!options.visitors && !options.withQuery && !(goal && goalHasProps(goal.rule)) && narrowVisitsAnswer(db, maxSeq)) {
    // A goal without props is matched on the event's type and path: the visit converted if one of its events does.
    const converted = goal && ((visit: RawVisit) => visit.events.some((event) => eventMatchesGoal(goal.rule, { type: event.type, path: event.path, props: null })));
    streamNarrowVisits(db, { ...input, filters: selection.filters }, (visit) => {
      all?.(visit);
      if (selected && (!converted || converted(visit))) selected(visit);
    });
    return;
  }
  if (!options.visitors && goal === undefined && isLargeWindow(db, selection)) {
    streamRawVisits(db, { ...input, withQuery: options.withQuery }, (visit) => {
      all?.(visit);
      selected?.(visit);
    });
    return;
  }
  const loadInput = { ...input, visitors: options.visitors };
  const visits = cachedRawVisits(db, loadInput, () => loadRawVisits(db, loadInput));
  if (all) for (const visit of visits) all(visit);
  if (selected) for (const visit of goal ? convertedVisits(db, selection.siteIds, visits, goal.rule, maxSeq) : visits) selected(visit);
}

/**
 * One selection grouped several ways (a dashboard's panels), each answer equal to groupedReport's for its grouping:
 * the groupings a rollup carries read it, and all the others come from **one** load of the raw visits and one
 * pass over them, however many there are (each panel loading them again was what made a filter click slow).
 * @example const [byPath, byCountry] = groupedReports(db, { selection, groupings: [pathGrouping, countryGrouping], currentSeq });
 */
export function groupedReports(db: Db, query: Omit<GroupedQuery, 'grouping' | 'asOfSeq'> & { groupings: readonly Grouping[] }): GroupedReport[] {
  const reports: (GroupedReport | undefined)[] = query.groupings.map((grouping) => {
    if (query.sinceMs !== undefined) return undefined;
    const plan = planRollupRead(query.selection, grouping);
    return plan && readRollups(db, plan);
  });
  const rawIndexes = reports.flatMap((report, index) => (report ? [] : [index]));
  if (rawIndexes.length > 0) {
    const groups = rawGroupsOf(db, query.selection, query.currentSeq, rawIndexes.map((index) => query.groupings[index]!), query.sinceMs);
    rawIndexes.forEach((index, at) => (reports[index] = toGroupedReport(groups[at]!)));
  }
  return reports as GroupedReport[];
}

/**
 * @example const report = groupedReport(db, { selection, grouping: { by: 'day' }, currentSeq });
 */
export function groupedReport(db: Db, query: GroupedQuery): GroupedReport {
  const asOf = query.asOfSeq ?? query.currentSeq;
  if (query.sinceMs !== undefined) return toGroupedReport(rawReport(db, query.selection, query.grouping, asOf, undefined, query.sinceMs));
  const plan = planRollupRead(query.selection, query.grouping);
  if (!plan) return toGroupedReport(rawReport(db, query.selection, query.grouping, asOf));
  const base = readRollups(db, plan);
  if (asOf >= query.currentSeq) return base;
  // A visitor is an anon_id across the scope's sites: recompute it on all of them.
  const anonIds = [...new Set(query.selection.siteIds.flatMap((siteId) => listVisitorsNewerThan(db, siteId, asOf, query.currentSeq)))];
  if (anonIds.length === 0) return base;
  const newer = new Map(query.selection.siteIds.map((siteId) => [siteId, anonIds]));
  const now = rawReport(db, query.selection, query.grouping, query.currentSeq, newer);
  const then = rawReport(db, query.selection, query.grouping, asOf, newer);
  const totals = new Map<string, GroupTotals>();
  for (const key of new Set([...base.totals.keys(), ...now.keys(), ...then.keys()])) {
    const counters = emptyCounters();
    const revenue = new Map<string, number>();
    for (const [source, sign] of [[base.totals.get(key), 1], [now.get(key), -1], [then.get(key), 1]] as const) {
      if (!source) continue;
      for (let index = 0; index < fieldCount; index++) counters[index]! += sign * source.counters[index]!;
      for (const [currency, amount] of source.revenue) revenue.set(currency, (revenue.get(currency) ?? 0) + sign * amount);
    }
    for (const [currency, amount] of revenue) if (amount === 0) revenue.delete(currency);
    if (counters.some((value) => value !== 0)) totals.set(key, { counters, revenue });
  }
  return {
    totals,
    computedFrom: 'rollups',
    visitorsOf: (keys) => {
      const counts = base.visitorsOf(keys);
      for (const key of keys) counts.set(key, counts.get(key)! - (now.get(key)?.visitors.size ?? 0) + (then.get(key)?.visitors.size ?? 0));
      return counts;
    },
  };
}
