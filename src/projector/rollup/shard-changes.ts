// Counter changes gathered per shard and visitor-set changes gathered per container, then written once each: the
// rows of a batch are read in primary-key order (one range scan for the periods of a dimension, or of a value's
// sets, where the batch touches most of them; a point read each where it touches few), merged, and written back in
// the same order, so the B-tree is walked forwards once instead of sought per row.
import type { Db } from '../../db/open.ts';
import { listCounterShards, readCounterShard, writeCounterShard } from '../queries/counter-shard-rows.ts';
import { listVisitorContainers, readVisitorContainer, writeVisitorContainer } from '../queries/visitor-set-rows.ts';
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

/** A period and a shard (or a chunk) as one number that sorts as the primary key does: by period, then the other. */
const lowRange = 2 ** 20;
const slotOf = (period: number, low: number): number => period * lowRange + low;
const periodOfSlot = (slot: number): number => Math.floor(slot / lowRange);
const lowOfSlot = (slot: number): number => slot % lowRange;

/** A range scan reads every row between the first and last period: worth it when the batch wants most of them. */
const minSlotsForRange = 8;
const maxRowsPerSlotRead = 4;

/** The stored rows of `slots` (sorted), by slot: one range scan when they are dense, else a point read each. */
function readSlots(
  slots: readonly number[],
  range: (first: number, last: number) => [number, number, Buffer][],
  point: (period: number, low: number) => Buffer | undefined,
): Map<number, Buffer> {
  const rows = new Map<number, Buffer>();
  let widest = 0;
  for (const slot of slots) widest = Math.max(widest, lowOfSlot(slot));
  const first = periodOfSlot(slots[0]!);
  const last = periodOfSlot(slots[slots.length - 1]!);
  if (slots.length >= minSlotsForRange && (last - first + 1) * (widest + 1) <= slots.length * maxRowsPerSlotRead) {
    for (const [period, low, blob] of range(first, last)) rows.set(slotOf(period, low), blob);
    return rows;
  }
  for (const slot of slots) {
    const blob = point(periodOfSlot(slot), lowOfSlot(slot));
    if (blob) rows.set(slot, blob);
  }
  return rows;
}

const ascending = (a: number, b: number): number => a - b;

/** The counters of one (site, dimension, traffic kind, grain), by slot (period, shard) and value id. */
interface ShardGroup {
  site_id: string;
  dim: number;
  internal: number;
  grain: number;
  slots: Map<number, Map<number, Counters>>;
}

export class ShardChanges {
  /** By site, then by (dim, internal, grain) as one number in key order. */
  private readonly sites = new Map<string, Map<number, ShardGroup>>();

  /** The counters to add to one value of one period (zeros, to be filled in by the caller). */
  counters(at: PeriodAddress, valueId: number): Counters {
    return this.countersOf(at.site_id, at.dim, at.grain, at.period, at.internal, valueId);
  }

  /** As counters(), without an address object (the batch's hot path). */
  countersOf(siteId: string, dim: number, grain: number, period: number, internal: number, valueId: number): Counters {
    let groups = this.sites.get(siteId);
    if (!groups) this.sites.set(siteId, (groups = new Map()));
    const groupKey = (dim * 2 + internal) * 2 + grain;
    let group = groups.get(groupKey);
    if (!group) groups.set(groupKey, (group = { site_id: siteId, dim, internal, grain, slots: new Map() }));
    const slot = slotOf(period, shardOf(valueId));
    let entries = group.slots.get(slot);
    if (!entries) group.slots.set(slot, (entries = new Map()));
    let counters = entries.get(valueId);
    if (!counters) entries.set(valueId, (counters = emptyCounters()));
    return counters;
  }

  /** Adds everything gathered to the stored shards. */
  write(db: Db): void {
    for (const groups of this.sites.values()) {
      for (const groupKey of [...groups.keys()].sort(ascending)) {
        const { site_id, dim, internal, grain, slots } = groups.get(groupKey)!;
        const changed = [...slots.keys()].filter((slot) => !allZero(slots.get(slot)!)).sort(ascending);
        if (changed.length === 0) continue;
        const stored = readSlots(
          changed,
          (first, last) => listCounterShards(db, { site_id, dim, internal, grain, first, last }),
          (period, shard) => readCounterShard(db, { site_id, dim, grain, period, internal, shard }),
        );
        for (const slot of changed) {
          const address = { site_id, dim, grain, period: periodOfSlot(slot), internal, shard: lowOfSlot(slot) };
          writeCounterShard(db, address, mergeIntoShard(stored.get(slot), slots.get(slot)!));
        }
      }
    }
    this.sites.clear();
  }
}

function allZero(entries: ReadonlyMap<number, Counters>): boolean {
  for (const counters of entries.values()) for (let index = 0; index < counters.length; index++) if (counters[index] !== 0) return false;
  return true;
}

/** One value's visitor sets of one (site, dimension, traffic kind, grain): members to add and remove by slot (period, chunk). */
interface SetGroup {
  site_id: string;
  dim: number;
  value_id: number;
  internal: number;
  grain: number;
  slots: Map<number, { add: number[]; remove: number[] }>;
}

/**
 * Visitor-set changes of a batch, applied per container when written: additions first, then removals (a visitor
 * added and then found leaving ends outside the set), and each period's `visitors` counter changed by as many as
 * actually joined or left.
 */
export class VisitorSetChanges {
  /** By site, then by (value id, dim, internal, grain) as one number. */
  private readonly sites = new Map<string, Map<number, SetGroup>>();

  add(at: PeriodAddress, valueId: number, vids: Iterable<number>): void {
    for (const vid of vids) this.slot(at, valueId, vid).add.push(lowOf(vid));
  }

  remove(at: PeriodAddress, valueId: number, vids: Iterable<number>): void {
    for (const vid of vids) this.slot(at, valueId, vid).remove.push(lowOf(vid));
  }

  private slot(at: PeriodAddress, valueId: number, vid: number): { add: number[]; remove: number[] } {
    let groups = this.sites.get(at.site_id);
    if (!groups) this.sites.set(at.site_id, (groups = new Map()));
    const groupKey = ((valueId * 16 + at.dim) * 2 + at.internal) * 2 + at.grain;
    let group = groups.get(groupKey);
    if (!group) groups.set(groupKey, (group = { site_id: at.site_id, dim: at.dim, value_id: valueId, internal: at.internal, grain: at.grain, slots: new Map() }));
    const slot = slotOf(at.period, chunkOf(vid));
    let members = group.slots.get(slot);
    if (!members) group.slots.set(slot, (members = { add: [], remove: [] }));
    return members;
  }

  /** Writes every changed container, and the `visitors` counter changes into `changes`. */
  write(db: Db, changes: ShardChanges): void {
    for (const groups of this.sites.values()) {
      // Primary-key order: dimension, value id, traffic kind, grain.
      const ordered = [...groups.values()].sort((a, b) => a.dim - b.dim || a.value_id - b.value_id || a.internal - b.internal || a.grain - b.grain);
      for (const { site_id, dim, value_id, internal, grain, slots } of ordered) {
        const sorted = [...slots.keys()].sort(ascending);
        const stored = readSlots(
          sorted,
          (first, last) => listVisitorContainers(db, { site_id, dim, value_id, internal, grain, first, last }),
          (period, chunk) => readVisitorContainer(db, { site_id, dim, grain, period, internal, value_id, chunk }),
        );
        for (const slot of sorted) {
          const { add, remove } = slots.get(slot)!;
          const updated = updateContainer(stored.get(slot), add, remove);
          // Not `change === 0`: a visitor joining and another leaving the same container change its members, not its size.
          if (updated.container === stored.get(slot)) continue;
          const period = periodOfSlot(slot);
          writeVisitorContainer(db, { site_id, dim, grain, period, internal, value_id, chunk: lowOfSlot(slot) }, updated.container);
          if (updated.change !== 0) changes.countersOf(site_id, dim, grain, period, internal, value_id)[field.visitors]! += updated.change;
        }
      }
    }
    this.sites.clear();
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
