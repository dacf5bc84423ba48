// Reads a report's totals from the rollups: counter shards over the periods covering the range (whole months as
// months, the rest as days), summed per group; exact visitors by OR-ing the groups' visitor containers.
import type { Db } from '../../db/open.ts';
import { Dim } from '../dimensions.ts';
import type { GroupedReport, GroupTotals, ReportSelection } from '../grouping.ts';
import { coverRange, Grain, type PeriodRun, toRuns } from '../periods.ts';
import { listCounterShards } from '../queries/counter-shards-in-range.ts';
import { listRevenue } from '../queries/revenue-in-range.ts';
import { findValueId, listValues } from '../queries/value-rows.ts';
import { listVisitorContainers } from '../queries/visitor-containers-in-range.ts';
import { visitorNumbersIssued } from '../queries/visitor-number-rows.ts';
import { emptyCounters, field, fieldCount, forEachShardEntry, shardOf } from '../rollup/counter-shard.ts';
import { chunkSize, countBits, orContainerInto } from '../rollup/visitor-container.ts';

export interface RollupRequest {
  selection: ReportSelection;
  dim: Dim;
  /** Only these values (a filter); every value of the dimension when absent. */
  values?: readonly string[];
  /** Only values passing this test (e.g. pages whose path is in the path filter). */
  valueTest?: (value: string) => boolean;
  grouping: 'all' | 'day' | 'value';
}

interface Member {
  siteId: string;
  valueId: number;
}

/** The selected value ids of one site and the group each belongs to. */
function selectIds(db: Db, siteId: string, request: RollupRequest): Map<number, string> {
  const groupOf = (value: string) => (request.grouping === 'value' ? value : '');
  const ids = new Map<number, string>();
  if (request.values) {
    for (const value of request.values) {
      const id = findValueId(db, siteId, request.dim, value);
      if (id !== undefined && (!request.valueTest || request.valueTest(value))) ids.set(id, groupOf(value));
    }
    return ids;
  }
  for (const [id, value] of listValues(db, siteId, request.dim)) if (!request.valueTest || request.valueTest(value)) ids.set(id, groupOf(value));
  return ids;
}

export function readRollups(db: Db, request: RollupRequest): GroupedReport {
  const { siteIds, range, withInternal, workspaceId } = request.selection;
  const internals = withInternal ? [0, 1] : [0];
  const runs: PeriodRun[] =
    request.grouping === 'day' ? [{ grain: Grain.day, from: range.fromDay, to: range.toDay }] : toRuns(coverRange(range.fromDay, range.toDay));
  const totals = new Map<string, GroupTotals>();
  const members = new Map<string, Member[]>();
  /** Per group, the sum of per-period set sizes: exact when the group is one set of one period. */
  const periodVisitors = new Map<string, number>();
  const scratch = emptyCounters();
  for (const siteId of siteIds) {
    const ids = selectIds(db, siteId, request);
    if (ids.size === 0) continue;
    for (const [id, group] of ids) {
      const list = members.get(group);
      if (list) list.push({ siteId, valueId: id });
      else members.set(group, [{ siteId, valueId: id }]);
    }
    // A few selected values: read only their shards; otherwise read every shard of the periods.
    const shards = ids.size <= 8 ? [...new Set([...ids.keys()].map(shardOf))] : [undefined];
    for (const internal of internals) {
      for (const run of runs) {
        const params = { site_id: siteId, dim: request.dim, internal, grain: run.grain, from_period: run.from, to_period: run.to };
        for (const shard of shards) {
          for (const [period, entries] of listCounterShards(db, params, shard)) {
            forEachShardEntry(entries, scratch, (id) => {
              const group = ids.get(id);
              if (group === undefined) return;
              const key = request.grouping === 'day' ? String(period) : group;
              let found = totals.get(key);
              if (!found) totals.set(key, (found = { counters: emptyCounters(), revenue: new Map() }));
              for (let index = 0; index < fieldCount; index++) found.counters[index]! += scratch[index]!;
              periodVisitors.set(key, (periodVisitors.get(key) ?? 0) + scratch[field.visitors]!);
            });
          }
        }
        if (request.dim === Dim.campaign && request.grouping === 'value') {
          for (const row of listRevenue(db, params)) {
            const group = ids.get(row.value_id);
            const found = group === undefined ? undefined : totals.get(group);
            if (found) found.revenue.set(row.currency, (found.revenue.get(row.currency) ?? 0) + row.amount_minor);
          }
        }
      }
    }
  }
  const singlePeriod = runs.length === 1 && runs[0]!.from === runs[0]!.to;
  return {
    totals,
    computedFrom: 'rollups',
    visitorsOf: (keys) => {
      const counts = new Map<string, number>();
      for (const key of keys) {
        const groupMembers = request.grouping === 'day' ? members.get('') : members.get(key);
        if (!groupMembers) {
          counts.set(key, 0);
          continue;
        }
        // One set of one period: its size is in the counters, no need to read it.
        if (groupMembers.length === 1 && internals.length === 1 && (request.grouping === 'day' || singlePeriod)) {
          counts.set(key, periodVisitors.get(key) ?? 0);
          continue;
        }
        const dayRuns = request.grouping === 'day' ? [{ grain: Grain.day, from: Number(key), to: Number(key) }] : runs;
        counts.set(key, unionCount(db, request.dim, workspaceId, groupMembers, internals, dayRuns));
      }
      return counts;
    },
  };
}

function unionCount(db: Db, dim: Dim, workspaceId: string, members: Member[], internals: number[], runs: readonly PeriodRun[]): number {
  const chunks = Math.max(1, Math.ceil(visitorNumbersIssued(db, workspaceId) / chunkSize));
  const words = new Uint32Array(chunks * (chunkSize / 32));
  for (const { siteId, valueId } of members) {
    for (const internal of internals) {
      for (const run of runs) {
        const params = { site_id: siteId, dim, value_id: valueId, internal, grain: run.grain, from_period: run.from, to_period: run.to };
        for (const [, chunk, container] of listVisitorContainers(db, params)) {
          if (chunk < chunks) orContainerInto(words, chunk, container);
        }
      }
    }
  }
  return countBits(words);
}
