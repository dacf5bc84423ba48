// Writes what a projector batch changed in the rollups (a RollupDelta), inside the batch's transaction, straight
// into the counter shards and visitor sets: counters at the day and at its month, visitors joining each day's set,
// revenue at both. Visitors that may have left a set (visits merged or changed their first event, GDPR deletion)
// are checked against the visits as the batch left them and taken out, so a report never counts a visitor the
// visits no longer support.
import type { Db } from '../../db/open.ts';
import { type VisitDim, visitDims, type Dim } from '../../vocabulary/dimensions.ts';
import { Grain, monthOfDay, periodBounds } from '../../vocabulary/periods.ts';
import { addRevenue } from '../queries/revenue-rows.ts';
import { findOrInsertValueId } from '../queries/value-rows.ts';
import { visitorKeepsValue } from '../queries/visitor-keeps-value.ts';
import { field, fieldCount } from '../../rollup-format/counter-shard.ts';
import type { DeltaEntry, RollupDelta, RollupKey } from './rollup-delta.ts';
import { type PeriodAddress, ShardChanges, VisitorSetChanges } from './shard-changes.ts';

function isVisitDim(dim: Dim): dim is VisitDim {
  return (visitDims as readonly Dim[]).includes(dim);
}

function dayAddressOf(key: RollupKey): PeriodAddress {
  return { site_id: key.site, dim: key.dim, grain: Grain.day, period: key.period, internal: key.internal };
}

function monthAddressOf(key: RollupKey): PeriodAddress {
  return { ...dayAddressOf(key), grain: Grain.month, period: monthOfDay(key.period) };
}

function stillQualifies(db: Db, key: RollupKey, anonId: string): boolean {
  if (!isVisitDim(key.dim)) throw new Error(`visitor removal without force on dimension ${key.dim}`);
  const { startMs, endMs } = periodBounds(key);
  return visitorKeepsValue(db, key.dim, key.value, { site_id: key.site, anon_id: anonId, is_internal: key.internal, start_ms: startMs, end_ms: endMs });
}

/** Adds an entry's counters (all but visitors, which follow the sets) at its day and its month. */
function addCounters(entry: DeltaEntry, key: RollupKey, valueId: number, changes: ShardChanges): void {
  const source = entry.counters;
  let any = false;
  for (let index = 0; index < fieldCount && !any; index++) any = index !== field.visitors && source[index] !== 0;
  if (!any) return;
  const { site, dim, period, internal } = key;
  const day = changes.countersOf(site, dim, Grain.day, period, internal, valueId);
  const month = changes.countersOf(site, dim, Grain.month, monthOfDay(period), internal, valueId);
  for (let index = 0; index < fieldCount; index++) {
    if (index === field.visitors) continue;
    day[index]! += source[index]!;
    month[index]! += source[index]!;
  }
}

/** The entry's possible leavers whose visits no longer support its value (all of them for a forced removal). */
function leaversOf(db: Db, entry: DeltaEntry, key: RollupKey): number[] {
  const leaving: number[] = [];
  for (const [vid, anonId] of entry.removals!) if (entry.forceRemoval || !stillQualifies(db, key, anonId)) leaving.push(vid);
  return leaving;
}

/**
 * Writes the delta; call inside the transaction that saves the projector position it brings the rollups to, after
 * the batch's visits are written (leavers are checked against them).
 * @example applyRollups(db, delta);
 */
export function applyRollups(db: Db, delta: RollupDelta): void {
  if (delta.isEmpty) return;
  const ids = new Map<string, number>();
  const valueIdOf = (key: RollupKey): number => {
    const text = `${key.site}\u0000${key.dim}\u0000${key.value}`;
    let id = ids.get(text);
    if (id === undefined) ids.set(text, (id = findOrInsertValueId(db, key.site, key.dim, key.value)));
    return id;
  };
  const changes = new ShardChanges();
  const sets = new VisitorSetChanges();
  for (const entry of delta.entries()) {
    const key = entry.key;
    const valueId = valueIdOf(key);
    addCounters(entry, key, valueId, changes);
    // Each container is updated once: the additions, then the leavers (checked against the visits, which already
    // hold the whole batch), so a visitor added and then found leaving ends outside the set, as it must.
    if (entry.adds && entry.adds.length > 0) sets.add(dayAddressOf(key), valueId, entry.adds);
    if (entry.removals) {
      const leaving = leaversOf(db, entry, key);
      if (leaving.length > 0) sets.remove(dayAddressOf(key), valueId, leaving);
    }
    if (!entry.revenue) continue;
    for (const at of [dayAddressOf(key), monthAddressOf(key)]) {
      for (const [currency, amountMinor] of entry.revenue) {
        if (amountMinor !== 0) addRevenue(db, { ...at, value_id: valueId, currency, amount_minor: amountMinor });
      }
    }
  }
  sets.write(db, changes);
  changes.write(db);
}
