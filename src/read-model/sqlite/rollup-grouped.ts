// Reads a report's totals from the rollups the projector keeps: counter shards over the periods covering the range
// (whole months as months, the rest as days), summed per group; exact visitors by OR-ing the groups' daily visitor
// containers. Everything read is as of the projector's position, in the report's read snapshot.
import { findSite } from '../../tenants/queries/find-site.ts';
import type { Db } from '../../db/open.ts';
import { Dim } from '../../vocabulary/dimensions.ts';
import type { GroupedReport, GroupTotals, ReportSelection } from './grouping.ts';
import { Grain, type PeriodRun, signedCover, type SignedRun } from '../../vocabulary/periods.ts';
import { listCounterShards } from './queries/counter-shards-in-range.ts';
import { listRevenue } from './queries/revenue-in-range.ts';
import { findValueId, listValues } from '../../projector/queries/value-rows.ts';
import { listVisitorContainers } from './queries/visitor-containers-in-range.ts';
import { visitorNumbersIssued } from '../../projector/queries/visitor-number-rows.ts';
import { emptyCounters, field, fieldCount, forEachShardEntry, shardOf } from '../../rollup-format/counter-shard.ts';
import { chunkSize, countBits, orContainerInto } from '../../rollup-format/visitor-container.ts';

export interface RollupRequest {
  selection: ReportSelection;
  dim: Dim;
  /** Only these values (a filter); every value of the dimension when absent. */
  values?: readonly string[];
  /** Only values passing this test (e.g. pages whose path is in the path filter). */
  valueTest?: (value: string) => boolean;
  grouping: 'all' | 'day' | 'value';
  /** The group each value counts in (grouped sources); the value itself when absent. */
  keyOf?: (value: string) => string;
}

interface Member {
  siteId: string;
  valueId: number;
}

function selectIds(db: Db, siteId: string, request: RollupRequest): Map<number, string> {
  const groupOf = (value: string) => (request.grouping === 'value' ? (request.keyOf ? request.keyOf(value) : value) : '');
  const ids = new Map<number, string>();
  if (request.values) {
    for (const value of request.values) {
      const id = findValueId(db, siteId, request.dim, value);
      if (id !== undefined && (!request.valueTest || request.valueTest(value))) ids.set(id, groupOf(value));
    }
    return ids;
  }
  const site = findSite(db, siteId);
  if (!site) return ids;
  for (const [id, value] of listValues(db, siteId, site.created_at, request.dim)) if (!request.valueTest || request.valueTest(value)) ids.set(id, groupOf(value));
  return ids;
}

/** What a read sums, the same for every site. */
interface RollupPlan {
  internals: number[];
  /** The range as days: the grain visitor sets are kept in. */
  rangeDays: PeriodRun;
  /** The periods whose counters are summed, each added or taken away (a whole month less its days outside the range). */
  runs: SignedRun[];
}

type TotalsOf = (key: string) => GroupTotals;

export function readRollups(db: Db, request: RollupRequest): GroupedReport {
  const { siteIds, range, withInternal } = request.selection;
  const rangeDays: PeriodRun = { grain: Grain.day, from: range.fromDay, to: range.toDay };
  const runs: SignedRun[] = request.grouping === 'day' ? [{ ...rangeDays, sign: 1 }] : signedCover(range.fromDay, range.toDay);
  const plan: RollupPlan = { internals: withInternal ? [0, 1] : [0], rangeDays, runs };
  const totals = new Map<string, GroupTotals>();
  const totalsOf: TotalsOf = (key) => {
    let found = totals.get(key);
    if (!found) totals.set(key, (found = { counters: emptyCounters(), revenue: new Map() }));
    return found;
  };
  /** Each site's selected value ids and their groups: a group's members are looked up only for the rows shown. */
  const selectedBySite = new Map<string, Map<number, string>>();
  for (const siteId of siteIds) {
    const ids = selectIds(db, siteId, request);
    if (ids.size === 0) continue;
    selectedBySite.set(siteId, ids);
    addSiteTotals(db, request, plan, siteId, ids, totalsOf);
  }
  // Exits belong to a page (report-questions.ts): a path filter reads the path's counters, whose exits are the page's,
  // not the selection's; a total or a day has none, as the raw read and ClickHouse answer.
  if (request.grouping !== 'value') for (const found of totals.values()) found.counters[field.exits] = 0;
  dropCancelledGroups(totals);
  return { totals, computedFrom: 'rollups', visitorsOf: (keys) => countVisitors(db, request, plan, { selectedBySite, totals }, keys) };
}

/** Adds one site's counter shards (and, for campaigns by value, its revenue) of the selected values to their groups. */
function addSiteTotals(db: Db, request: RollupRequest, plan: RollupPlan, siteId: string, ids: Map<number, string>, totalsOf: TotalsOf): void {
  const scratch = emptyCounters();
  // Shard entries are summed per value id in one flat array (a year of pages is hundreds of thousands of
  // entries), then per group once.
  // A loop, not Math.max(...ids): a dimension may have more values than a call takes arguments.
  let maxId = 0;
  for (const id of ids.keys()) if (id > maxId) maxId = id;
  const byValue = request.grouping === 'day' ? undefined : new Float64Array((maxId + 1) * fieldCount);
  const seen = new Uint8Array(maxId + 1);
  // A few selected values: read only their shards; otherwise read every shard of the periods.
  const shards = ids.size <= 8 ? [...new Set([...ids.keys()].map(shardOf))] : [undefined];
  for (const internal of plan.internals) {
    for (const { sign, ...run } of plan.runs) {
      const params = { site_id: siteId, dim: request.dim, internal, grain: run.grain, from_period: run.from, to_period: run.to };
      for (const shard of shards) {
        for (const [period, entries] of listCounterShards(db, params, shard)) {
          forEachShardEntry(entries, scratch, (id) => {
            if (id > maxId || !ids.has(id)) return;
            if (byValue) {
              const base = id * fieldCount;
              for (let index = 0; index < fieldCount; index++) byValue[base + index]! += sign * scratch[index]!;
              seen[id] = 1;
              return;
            }
            const counters = totalsOf(String(period)).counters;
            for (let index = 0; index < fieldCount; index++) counters[index]! += sign * scratch[index]!;
          });
        }
      }
      if (request.dim === Dim.campaign && request.grouping === 'value') {
        for (const row of listRevenue(db, params)) {
          const group = ids.get(row.value_id);
          if (group === undefined) continue;
          const revenue = totalsOf(group).revenue;
          revenue.set(row.currency, (revenue.get(row.currency) ?? 0) + sign * row.amount_minor);
        }
      }
    }
  }
  if (byValue) addValueSums(ids, byValue, seen, totalsOf);
}

/** Each value's summed counters into its group's totals. */
function addValueSums(ids: Map<number, string>, byValue: Float64Array, seen: Uint8Array, totalsOf: TotalsOf): void {
  for (const [id, group] of ids) {
    // A value seen only in a month's days outside the range sums to zero: it has no row.
    if (!seen[id]) continue;
    const base = id * fieldCount;
    let allZero = true;
    for (let index = 0; index < fieldCount && allZero; index++) allZero = byValue[base + index] === 0;
    if (allZero) continue;
    const counters = totalsOf(group).counters;
    for (let index = 0; index < fieldCount; index++) counters[index]! += byValue[base + index]!;
  }
}

/** Signed runs can leave a group whose counts all cancel out (they were all outside the range): no row. */
function dropCancelledGroups(totals: Map<string, GroupTotals>): void {
  for (const [key, found] of totals) {
    if (!found.counters.every((value) => value === 0)) continue;
    let noRevenue = true;
    for (const amount of found.revenue.values()) noRevenue &&= amount === 0;
    if (noRevenue) totals.delete(key);
  }
}

/** Exact visitors of the groups shown: a single day's set size from its counters, else the union of the day sets. */
function countVisitors(
  db: Db,
  request: RollupRequest,
  plan: RollupPlan,
  read: { selectedBySite: Map<string, Map<number, string>>; totals: Map<string, GroupTotals> },
  keys: readonly string[],
): Map<string, number> {
  const { range, workspaceId } = request.selection;
  // Visitor sets are kept by day: a single day's set size is in its counters; anything longer takes the union.
  const usesDaySetSizes = request.grouping === 'day' || range.fromDay === range.toDay;
  const counts = new Map<string, number>();
  const wanted = new Set(request.grouping === 'day' ? [''] : keys);
  const membersOf = new Map<string, Member[]>();
  for (const [siteId, ids] of read.selectedBySite) {
    for (const [valueId, group] of ids) {
      if (!wanted.has(group)) continue;
      const list = membersOf.get(group);
      if (list) list.push({ siteId, valueId });
      else membersOf.set(group, [{ siteId, valueId }]);
    }
  }
  for (const key of keys) {
    const groupMembers = membersOf.get(request.grouping === 'day' ? '' : key);
    if (!groupMembers) {
      counts.set(key, 0);
      continue;
    }
    // One set of one day: its size is in the counters, no need to read it.
    if (groupMembers.length === 1 && plan.internals.length === 1 && usesDaySetSizes) {
      counts.set(key, read.totals.get(key)?.counters[field.visitors] ?? 0);
      continue;
    }
    const dayRuns = request.grouping === 'day' ? [{ grain: Grain.day, from: Number(key), to: Number(key) }] : [plan.rangeDays];
    counts.set(key, unionCount(db, request.dim, workspaceId, groupMembers, plan.internals, dayRuns));
  }
  return counts;
}

function unionCount(
  db: Db,
  dim: Dim,
  workspaceId: string,
  members: Member[],
  internals: number[],
  runs: readonly PeriodRun[],
): number {
  const chunks = Math.max(1, Math.ceil(visitorNumbersIssued(db, workspaceId) / chunkSize));
  const words = new Uint32Array(chunks * (chunkSize / 32));
  for (const { siteId, valueId } of members) {
    for (const internal of internals) {
      for (const run of runs) {
        const params = { site_id: siteId, dim, value_id: valueId, internal, grain: Grain.day, from_period: run.from, to_period: run.to };
        for (const [, chunk, container] of listVisitorContainers(db, params)) {
          if (chunk < chunks) orContainerInto(words, chunk, container);
        }
      }
    }
  }
  return countBits(words);
}
