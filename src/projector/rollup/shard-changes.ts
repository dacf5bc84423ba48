// Counter changes gathered per shard, then written with one read-modify-write of each shard blob, and visitor-set
// changes applied per container: how the projector writes a batch's rollup changes.
import type { Db } from '../../db/open.ts';
import { readCounterShard, type ShardAddress, writeCounterShard } from '../queries/counter-shard-rows.ts';
import { readVisitorContainer, writeVisitorContainer } from '../queries/visitor-set-rows.ts';
import { type Counters, emptyCounters, field, mergeIntoShard, shardOf } from '../../rollup-format/counter-shard.ts';
import { chunkOf, lowOf, updateContainer } from '../../rollup-format/visitor-container.ts';

/** One (site, dimension, grain, period, traffic kind): where a value's counters and visitor set live. */
export interface PeriodAddress {
  site_id: string;
  dim: number;
  grain: number;
  period: number;
  internal: number;
}

export class ShardChanges {
  private readonly shards = new Map<string, { address: ShardAddress; entries: Map<number, Counters> }>();

  /** The counters to add to one value of one period (zeros, to be filled in by the caller). */
  counters(at: PeriodAddress, valueId: number): Counters {
    const shard = shardOf(valueId);
    const text = `${at.site_id}\u0000${at.dim}\u0000${at.grain}\u0000${at.period}\u0000${at.internal}\u0000${shard}`;
    let found = this.shards.get(text);
    if (!found) {
      found = { address: { site_id: at.site_id, dim: at.dim, grain: at.grain, period: at.period, internal: at.internal, shard }, entries: new Map() };
      this.shards.set(text, found);
    }
    let counters = found.entries.get(valueId);
    if (!counters) found.entries.set(valueId, (counters = emptyCounters()));
    return counters;
  }

  /** Adds everything gathered to the stored shards. */
  write(db: Db): void {
    for (const { address, entries } of this.shards.values()) {
      if ([...entries.values()].every((counters) => counters.every((value) => value === 0))) continue;
      writeCounterShard(db, address, mergeIntoShard(readCounterShard(db, address), entries));
    }
    this.shards.clear();
  }
}

/** Adds and removes visitor numbers in one value's set of one period; returns the change in its size. */
export function updateVisitorSet(db: Db, at: PeriodAddress, valueId: number, add: Iterable<number>, remove: Iterable<number>): number {
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
    const address = { ...at, value_id: valueId, chunk };
    const updated = updateContainer(readVisitorContainer(db, address), members.add, members.remove);
    if (updated.change === 0) continue;
    writeVisitorContainer(db, address, updated.container);
    change += updated.change;
  }
  return change;
}

/**
 * Adds visitors to and takes visitors out of one value's set of one day, and changes the day's `visitors` counter
 * by as many as actually joined or left (gathered in `changes`); returns that change.
 */
export function updateDaySet(db: Db, at: PeriodAddress, valueId: number, add: Iterable<number>, remove: Iterable<number>, changes: ShardChanges): number {
  const change = updateVisitorSet(db, at, valueId, add, remove);
  if (change !== 0) changes.counters(at, valueId)[field.visitors]! += change;
  return change;
}
