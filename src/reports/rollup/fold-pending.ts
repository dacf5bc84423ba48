// Folds staged rollup rows into the counter shards and visitor sets: each staged day row counts at its day and at
// its month (visitor sets are kept by day only: a report unions the days it covers). The writer runs it when idle, a bounded slice per transaction taken in key order, so each slice meets
// a shard or container once and the rewrites are paid once per many commits instead of once per commit.
import type { Db } from '../../db/open.ts';
import { Grain, monthOfDay } from '../../projector/periods.ts';
import { deletePendingCountersThrough, listPendingCounters, stagedIndexes } from '../queries/pending-counter-rows.ts';
import { deletePendingVisitorsThrough, listPendingVisitors } from '../queries/pending-visitor-rows.ts';
import { field } from '../../projector/rollup/counter-shard.ts';
import { type PeriodAddress, ShardChanges, updateVisitorSet } from '../../projector/rollup/shard-changes.ts';
import { moveAllStagingLog } from './staging-log.ts';

interface SetAdditions {
  at: PeriodAddress;
  valueId: number;
  vids: number[];
}

function foldVisitors(db: Db, maxRows: number, changes: ShardChanges): number {
  const rows = listPendingVisitors(db, maxRows);
  const additions = new Map<string, SetAdditions>();
  const addTo = (at: PeriodAddress, valueId: number, vid: number) => {
    const text = `${at.site_id}\u0000${at.dim}\u0000${at.grain}\u0000${at.period}\u0000${at.internal}\u0000${valueId}`;
    const group = additions.get(text);
    if (group) group.vids.push(vid);
    else additions.set(text, { at, valueId, vids: [vid] });
  };
  for (const row of rows) {
    const [site_id, dim, valueId, internal, day, vid] = row;
    addTo({ site_id, dim, grain: Grain.day, period: day, internal }, valueId, vid);
  }
  if (rows.length > 0) deletePendingVisitorsThrough(db, rows[rows.length - 1]!);
  for (const { at, valueId, vids } of additions.values()) {
    const change = updateVisitorSet(db, at, valueId, vids, []);
    if (change !== 0) changes.counters(at, valueId)[field.visitors]! += change;
  }
  return rows.length;
}

function foldCounters(db: Db, maxRows: number, changes: ShardChanges): number {
  const rows = listPendingCounters(db, maxRows);
  for (const row of rows) {
    const [site_id, dim, internal, day, valueId] = row;
    for (const at of [
      { site_id, dim, grain: Grain.day, period: day, internal },
      { site_id, dim, grain: Grain.month, period: monthOfDay(day), internal },
    ]) {
      const counters = changes.counters(at, valueId);
      stagedIndexes.forEach((index, position) => (counters[index]! += row[5 + position] as number));
    }
  }
  if (rows.length > 0) deletePendingCountersThrough(db, rows[rows.length - 1]!);
  return rows.length;
}

/**
 * Folds up to `maxRows` staged rows of each kind; returns whether more remain. Call inside a write transaction.
 * @example while (inWriteTransaction(db, () => foldPendingRollups(db, 500))) {}
 */
export function foldPendingRollups(db: Db, maxRows: number): boolean {
  const changes = new ShardChanges();
  const visitorRows = foldVisitors(db, maxRows, changes);
  const counterRows = foldCounters(db, maxRows, changes);
  changes.write(db);
  return visitorRows === maxRows || counterRows === maxRows;
}

/** Moves the whole staging log and folds everything staged (inside the caller's write transaction). */
export function foldAllPendingRollups(db: Db): void {
  moveAllStagingLog(db);
  while (foldPendingRollups(db, 5000)) {
    // more to fold
  }
}
