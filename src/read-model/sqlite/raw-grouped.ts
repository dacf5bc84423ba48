// Groups raw visits (src/reports/raw/raw-visits.ts) the way the rollups group them, with the same semantics
// (docs/reports.md): visit dimensions select whole visits by their first event, the path filter selects events
// and, for visit measures, the entry page; events count on their day, visit measures on the visit's first day; a
// path's visitors are those with a pageview of it.
import { countsPageviewVisitorsOnly, Dim, pageKeyOf, purchaseType, type VisitDim, visitDims, visitDimValue } from '../../vocabulary/dimensions.ts';
import type { GroupedReport, GroupTotals, Grouping } from './grouping.ts';
import { type ReportFilters, type ReportRange, visitFilterColumns } from '../../vocabulary/report-filters.ts';
import { dayMs, dayOf } from '../../vocabulary/periods.ts';
import type { RawEventRow } from '../../event-store/queries/raw-window-events.ts';
import { emptyCounters, field } from '../../rollup-format/counter-shard.ts';
import type { RawVisit } from './raw-visits.ts';

/** The raw fallback's groupings: a rollup's, or a series' intervals (bucketOf names the interval of a time). */
export type RawGrouping = Grouping | { by: 'bucket'; bucketOf: (ms: number) => string };

export interface RawGroup extends GroupTotals {
  /** The visitors' identities (visitorOf: a number where the visit has one, else its anon_id). */
  visitors: VisitorSet;
}

/** Numbers a set holds before it keeps them as bits instead. */
const bitsFrom = 1_024;

/**
 * A set of visitors that counts them: a Set, whose visitor numbers move into a bitmap by number once it holds many
 * (a month's groups of a large site hold tens of thousands; adding to a Set that size was most of a raw grouping's
 * time, a bit costs next to nothing: 32 KiB for 262,144 visitor numbers). anon_id strings stay in the Set.
 */
export class VisitorSet {
  private readonly set = new Set<string | number>();
  private bits: Uint32Array | undefined;
  private inBits = 0;
  add(visitor: string | number): void {
    if (typeof visitor !== 'number' || visitor < 0) {
      this.set.add(visitor);
      return;
    }
    if (!this.bits) {
      this.set.add(visitor);
      if (this.set.size > bitsFrom) this.toBits();
      return;
    }
    const word = visitor >>> 5;
    if (word >= this.bits.length) {
      const grown = new Uint32Array(Math.max(word + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (visitor & 31);
    if ((this.bits[word]! & mask) === 0) {
      this.bits[word]! |= mask;
      this.inBits++;
    }
  }
  get size(): number {
    return this.set.size + this.inBits;
  }
  private toBits(): void {
    this.bits = new Uint32Array(1_024);
    const numbers = [...this.set].filter((visitor): visitor is number => typeof visitor === 'number' && visitor >= 0);
    for (const visitor of numbers) this.set.delete(visitor);
    for (const visitor of numbers) this.add(visitor);
  }
}

/** A visit's visitor in the visitor sets: its number where it has one (a set of numbers is far cheaper), else anon_id. */
const visitorOf = (visit: RawVisit): string | number => visit.visitor_number ?? visit.anon_id;

const visitFilterEntries = Object.entries(visitFilterColumns) as [keyof typeof visitFilterColumns, keyof RawEventRow][];

/** Whether a visit's first event passes the visit filters (source, device, browser, os, country, region, city). */
export function matchesVisitFilters(entry: RawEventRow, filters: ReportFilters): boolean {
  for (const [name, column] of visitFilterEntries) {
    const wanted = filters[name];
    if (wanted && !wanted.includes(entry[column] as string)) return false;
  }
  return true;
}

/** A visit's value of a visit dimension is its entry event's (null for other dimensions). */
function visitValue(entry: RawEventRow, grouping: Grouping): string | null {
  if (grouping.by !== 'value' || !(visitDims as readonly Dim[]).includes(grouping.dim)) return null;
  const value = visitDimValue(entry, grouping.dim as VisitDim);
  return value !== null && grouping.keyOf ? grouping.keyOf(value) : value;
}

function eventKey(visit: RawVisit, event: RawEventRow, grouping: RawGrouping): string | null {
  if (grouping.by === 'all') return '';
  if (grouping.by === 'day') return String(dayOf(event.ts));
  if (grouping.by === 'bucket') return grouping.bucketOf(event.ts);
  if (grouping.dim === Dim.path) return event.path;
  if (grouping.dim === Dim.page) return pageKeyOf(event.path, event.query);
  if (grouping.dim === Dim.type) return event.type;
  return visitValue(visit.entry, grouping);
}

/** Keys of the visit measures (the entry's) and of the exit. */
function visitKeys(visit: RawVisit, grouping: RawGrouping): { entry: string | null; exit: string | null } {
  if (grouping.by === 'all') return { entry: '', exit: null };
  if (grouping.by === 'day') return { entry: String(dayOf(visit.start_ts)), exit: null };
  if (grouping.by === 'bucket') return { entry: grouping.bucketOf(visit.start_ts), exit: null };
  if (grouping.dim === Dim.path) return { entry: visit.entry.path, exit: visit.exit?.path ?? null };
  if (grouping.dim === Dim.page) {
    return { entry: pageKeyOf(visit.entry.path, visit.entry.query), exit: visit.exit ? pageKeyOf(visit.exit.path, visit.exit.query) : null };
  }
  if (grouping.dim === Dim.type) return { entry: null, exit: null };
  return { entry: visitValue(visit.entry, grouping), exit: null };
}

/**
 * The raw visits grouped one way; sinceMs: only events from it on, and visits starting from it on, count (a rolling
 * window: summary-v2 and the ranked reports' since=).
 */
export function rawGroups(visits: readonly RawVisit[], range: ReportRange, filters: ReportFilters, grouping: RawGrouping, sinceMs = -Infinity): Map<string, RawGroup> {
  return rawGroupsMany(visits, range, filters, [grouping], sinceMs)[0]!;
}

/** What each grouping of a pass keeps, decided once for the pass. */
interface GroupingPass {
  grouping: RawGrouping;
  groups: Map<string, RawGroup>;
  pageviewVisitorsOnly: boolean;
  keepsRevenue: boolean;
  /** The group the current visit's visitor was last added to (adding it again changes nothing). */
  lastAdded: RawGroup | undefined;
}

/**
 * The raw visits grouped several ways in one pass (a dashboard's panels over one selection): each visit's filters,
 * range and pageviews are worked out once, whatever the number of groupings; each map equals rawGroups' for its
 * grouping.
 */
export function rawGroupsMany(visits: readonly RawVisit[], range: ReportRange, filters: ReportFilters, groupings: readonly RawGrouping[], sinceMs = -Infinity): Map<string, RawGroup>[] {
  const grouper = rawGrouper(range, filters, groupings, sinceMs);
  for (const visit of visits) grouper.add(visit);
  return grouper.groups();
}

/**
 * rawGroupsMany fed one visit at a time (streamRawVisits hands them over as it cuts them, never holding them all).
 * @example const grouper = rawGrouper(range, filters, groupings); streamRawVisits(db, input, grouper.add); grouper.groups();
 */
export function rawGrouper(range: ReportRange, filters: ReportFilters, groupings: readonly RawGrouping[], sinceMs = -Infinity): { add: (visit: RawVisit) => void; groups: () => Map<string, RawGroup>[] } {
  const passes: GroupingPass[] = groupings.map((grouping) => ({
    grouping,
    groups: new Map(),
    // A path's visitors are the people with a pageview of it (CONTRACT section 10), as the rollups' path and page
    // sets hold them: grouped by path or page, or filtered by path, only a pageview makes its visitor count.
    pageviewVisitorsOnly: filters.path !== undefined || (grouping.by === 'value' && countsPageviewVisitorsOnly(grouping.dim)),
    // Revenue is a campaign's figure only (report-questions.ts): the rollups keep it for campaigns, and so does this.
    keepsRevenue: grouping.by === 'value' && grouping.dim === Dim.campaign,
    lastAdded: undefined,
  }));
  const group = (groups: Map<string, RawGroup>, key: string) => {
    let found = groups.get(key);
    if (!found) groups.set(key, (found = { counters: emptyCounters(), revenue: new Map(), visitors: new VisitorSet() }));
    return found;
  };
  // The range in epoch ms (a day is in it when its first millisecond is): no day arithmetic per event.
  const fromMs = Math.max(sinceMs, range.fromDay * dayMs);
  const toMs = (range.toDay + 1) * dayMs;
  const inRange = (ts: number) => ts >= fromMs && ts < toMs;
  const pathPasses = (path: string | null) => !filters.path || (path !== null && filters.path.includes(path));
  // Groupings by a visit dimension give every event of a visit the same key: its events are summed once per visit.
  const byVisit = passes.filter((pass) => pass.grouping.by === 'value' && (visitDims as readonly Dim[]).includes(pass.grouping.dim));
  const byEvent = passes.filter((pass) => !byVisit.includes(pass));
  const add = (visit: RawVisit) => {
    if (!matchesVisitFilters(visit.entry, filters)) return;
    if (inRange(visit.start_ts)) {
      let pageviews = 0;
      for (const event of visit.events) if (event.type === 'pageview') pageviews++;
      const entryPasses = pathPasses(visit.entry.path);
      const exitPasses = visit.exit !== null && pathPasses(visit.exit.path);
      for (const pass of passes) {
        const keys = visitKeys(visit, pass.grouping);
        if (keys.entry !== null && entryPasses) {
          const counters = group(pass.groups, keys.entry).counters;
          counters[field.visits]! += 1;
          counters[field.bounces]! += pageviews === 1 && visit.events.length === 1 ? 1 : 0;
          counters[field.duration_ms]! += visit.end_ts - visit.start_ts;
          counters[field.visit_pageviews]! += pageviews;
          counters[field.visit_events]! += visit.events.length;
        }
        if (keys.exit !== null && exitPasses) group(pass.groups, keys.exit).counters[field.exits]! += 1;
      }
    }
    // The visit's counted events, once: what every grouping by a visit dimension adds to the visit's group.
    const visitor = visitorOf(visit);
    for (const pass of byEvent) pass.lastAdded = undefined;
    let events = 0;
    let pageviewEvents = 0;
    let conversions = 0;
    let revenue: Map<string, number> | undefined;
    for (const event of visit.events) {
      if (!inRange(event.ts) || !pathPasses(event.path)) continue;
      const isPageview = event.type === 'pageview';
      events++;
      if (isPageview) pageviewEvents++;
      if (event.type === purchaseType) conversions++;
      if (event.revenue_minor !== null && event.revenue_currency !== null) {
        revenue ??= new Map();
        revenue.set(event.revenue_currency, (revenue.get(event.revenue_currency) ?? 0) + event.revenue_minor);
      }
      for (const pass of byEvent) {
        const key = eventKey(visit, event, pass.grouping);
        if (key === null) continue;
        const found = group(pass.groups, key);
        found.counters[field.events]! += 1;
        if (isPageview) found.counters[field.pageviews]! += 1;
        if (event.type === purchaseType) found.counters[field.conversions]! += 1;
        if (pass.keepsRevenue && event.revenue_minor !== null && event.revenue_currency !== null) {
          found.revenue.set(event.revenue_currency, (found.revenue.get(event.revenue_currency) ?? 0) + event.revenue_minor);
        }
        if ((!pass.pageviewVisitorsOnly || isPageview) && found !== pass.lastAdded) {
          found.visitors.add(visitor);
          pass.lastAdded = found;
        }
      }
    }
    if (events === 0) return;
    for (const pass of byVisit) {
      const key = visitValue(visit.entry, pass.grouping as Grouping);
      if (key === null) continue;
      const found = group(pass.groups, key);
      found.counters[field.events]! += events;
      found.counters[field.pageviews]! += pageviewEvents;
      found.counters[field.conversions]! += conversions;
      if (pass.keepsRevenue && revenue) for (const [currency, amount] of revenue) found.revenue.set(currency, (found.revenue.get(currency) ?? 0) + amount);
      if (!pass.pageviewVisitorsOnly || pageviewEvents > 0) found.visitors.add(visitor);
    }
  };
  return { add, groups: () => passes.map((pass) => pass.groups) };
}

export function toGroupedReport(groups: Map<string, RawGroup>): GroupedReport {
  return {
    totals: groups,
    visitorsOf: (keys) => new Map(keys.map((key) => [key, groups.get(key)?.visitors.size ?? 0])),
    computedFrom: 'events',
  };
}
