// Writes what a group of events changed (a RollupDelta) into the rollup tables, inside the group's transaction:
// visitor sets first (their size changes become `visitors` counter deltas), then counter shards, revenue and
// freshness. Each shard and container is read and written once per group.
import type { Db } from '../../db/open.ts';
import { Dim, type VisitDim, visitDims } from '../dimensions.ts';
import { periodBounds } from '../periods.ts';
import { readCounterShard, type ShardAddress, writeCounterShard } from '../queries/counter-shard-rows.ts';
import { addRevenue } from '../queries/revenue-rows.ts';
import { raiseSiteFreshness } from '../queries/site-freshness-rows.ts';
import { findOrInsertValueId, findValueId } from '../queries/value-rows.ts';
import { readVisitorContainer, writeVisitorContainer } from '../queries/visitor-set-rows.ts';
import { visitorKeepsValue } from '../queries/visitor-keeps-value.ts';
import { type Counters, decodeShard, emptyCounters, encodeShard, field, fieldCount, shardOf } from './counter-shard.ts';
import { type RollupDelta, type RollupKey } from './rollup-delta.ts';
import { chunkOf, lowOf, updateContainer } from './visitor-container.ts';

function isVisitDim(dim: Dim): dim is VisitDim {
  return (visitDims as readonly Dim[]).includes(dim);
}

/** Applies additions and removals to one value's containers; returns the change in its number of visitors. */
function updateMembers(db: Db, key: RollupKey, valueId: number, add: Iterable<number>, remove: Iterable<number>): number {
  const byChunk = new Map<number, { add: number[]; remove: number[] }>();
  const slot = (vid: number) => {
    let entry = byChunk.get(chunkOf(vid));
    if (!entry) byChunk.set(chunkOf(vid), (entry = { add: [], remove: [] }));
    return entry;
  };
  for (const vid of add) slot(vid).add.push(lowOf(vid));
  for (const vid of remove) slot(vid).remove.push(lowOf(vid));
  let change = 0;
  for (const [chunk, members] of byChunk) {
    const address = { site_id: key.site, dim: key.dim, grain: key.grain, period: key.period, internal: key.internal, value_id: valueId, chunk };
    const stored = readVisitorContainer(db, address);
    const updated = updateContainer(stored, members.add, members.remove);
    if (updated.change === 0) continue;
    writeVisitorContainer(db, address, updated.container);
    change += updated.change;
  }
  return change;
}

function stillQualifies(db: Db, key: RollupKey, anonId: string): boolean {
  if (!isVisitDim(key.dim)) throw new Error(`visitor removal without force on dimension ${key.dim}`);
  const { startMs, endMs } = periodBounds(key);
  return visitorKeepsValue(db, key.dim, key.value, { site_id: key.site, anon_id: anonId, is_internal: key.internal, start_ms: startMs, end_ms: endMs });
}

function flushVisitorSets(db: Db, delta: RollupDelta, valueIdOf: (key: RollupKey) => number): void {
  for (const entry of delta.entries()) {
    if (entry.adds) entry.counters[field.visitors]! += updateMembers(db, entry.key, valueIdOf(entry.key), entry.adds, []);
  }
  for (const { key, counters, removals, forceRemoval } of delta.entries()) {
    if (!removals) continue;
    const valueId = findValueId(db, key.site, key.dim, key.value);
    if (valueId === undefined) continue;
    const leaving = [...removals].filter(([, anonId]) => forceRemoval || !stillQualifies(db, key, anonId)).map(([vid]) => vid);
    if (leaving.length > 0) counters[field.visitors]! += updateMembers(db, key, valueId, [], leaving);
  }
}

function flushCounters(db: Db, delta: RollupDelta, valueIdOf: (key: RollupKey) => number): void {
  const shards = new Map<string, { address: ShardAddress; entries: [number, Counters][] }>();
  for (const { key, counters } of delta.entries()) {
    if (counters.every((value) => value === 0)) continue;
    const valueId = valueIdOf(key);
    const address: ShardAddress = { site_id: key.site, dim: key.dim, grain: key.grain, period: key.period, internal: key.internal, shard: shardOf(valueId) };
    const text = JSON.stringify(address);
    let shard = shards.get(text);
    if (!shard) shards.set(text, (shard = { address, entries: [] }));
    shard.entries.push([valueId, counters]);
  }
  for (const { address, entries } of shards.values()) {
    const stored = decodeShard(readCounterShard(db, address));
    for (const [valueId, counters] of entries) {
      let current = stored.get(valueId);
      if (!current) stored.set(valueId, (current = emptyCounters()));
      for (let index = 0; index < fieldCount; index++) current[index]! += counters[index]!;
    }
    writeCounterShard(db, address, encodeShard(stored));
  }
}

/**
 * Writes the delta; call inside the transaction that stored the events it describes.
 * @example flushRollups(db, delta);
 */
export function flushRollups(db: Db, delta: RollupDelta): void {
  if (delta.isEmpty) return;
  const ids = new Map<string, number>();
  const valueIdOf = (key: RollupKey): number => {
    const text = `${key.site}\u0000${key.dim}\u0000${key.value}`;
    let id = ids.get(text);
    if (id === undefined) ids.set(text, (id = findOrInsertValueId(db, key.site, key.dim, key.value)));
    return id;
  };
  flushVisitorSets(db, delta, valueIdOf);
  flushCounters(db, delta, valueIdOf);
  for (const { key, revenue } of delta.entries()) {
    if (!revenue) continue;
    for (const [currency, amountMinor] of revenue) {
      if (amountMinor === 0) continue;
      addRevenue(db, { site_id: key.site, dim: key.dim, grain: key.grain, period: key.period, internal: key.internal, value_id: valueIdOf(key), currency, amount_minor: amountMinor });
    }
  }
  for (const [site, { maxSeq, maxReceivedAt }] of delta.freshness) raiseSiteFreshness(db, { site_id: site, max_seq: maxSeq, max_received_at: maxReceivedAt });
}
