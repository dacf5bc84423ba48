// The counters of up to 128 dimension values of one period, packed in one blob: per value, its id (as the gap
// from the previous id) and then each counter, all as unsigned LEB128 varints. A report over a year reads a few
// thousand of these rows instead of hundreds of thousands of counter rows.

/** Every counter a rollup keeps per (dimension value, period); see docs/reports.md for their definitions. */
export const counterFields = [
  'events',
  'pageviews',
  'visitors',
  'visits',
  'bounces',
  'duration_ms',
  'visit_pageviews',
  'visit_events',
  'exits',
  'conversions',
] as const;
export type CounterField = (typeof counterFields)[number];
export const fieldCount = counterFields.length;
export const field = Object.fromEntries(counterFields.map((name, index) => [name, index])) as Record<CounterField, number>;

/** Value ids per shard. */
export const shardSize = 128;

export function shardOf(valueId: number): number {
  return Math.floor(valueId / shardSize);
}

/** A plain array: the write path makes one per touched rollup key, and typed arrays cost far more to allocate. */
export type Counters = number[];

export function emptyCounters(): Counters {
  return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
}

if (emptyCounters().length !== fieldCount) throw new Error('emptyCounters must have one zero per counter field');

/**
 * Calls `visit(valueId, offset)` for each entry, with the entry's counters in `scratch` (reused between calls).
 * @example forEachShardEntry(blob, scratch, (id) => { totals[id] += scratch[field.pageviews]; });
 */
export function forEachShardEntry(blob: Uint8Array, scratch: Counters, visit: (valueId: number) => void): void {
  let offset = 0;
  let id = -1;
  const length = blob.length;
  while (offset < length) {
    // Inlined varint reads: this loop decodes every counter of a year-long report.
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = blob[offset++]!;
      value += (byte & 127) * scale;
      scale *= 128;
    } while (byte >= 128);
    id += value + 1;
    for (let index = 0; index < fieldCount; index++) {
      value = 0;
      scale = 1;
      do {
        byte = blob[offset++]!;
        value += (byte & 127) * scale;
        scale *= 128;
      } while (byte >= 128);
      scratch[index] = value;
    }
    visit(id);
  }
}

/** mergeIntoShard's output buffer, reused from shard to shard (its result is a copy). */
let scratchBytes = new Uint8Array(4096);

/**
 * Adds `changes` (value id → counter changes) to a stored shard in one merge pass over its sorted entries, without
 * decoding it into a map; values whose counters end at zero are left out. Throws on a negative counter.
 * @example writeCounterShard(db, address, mergeIntoShard(readCounterShard(db, address), changes));
 */
export function mergeIntoShard(blob: Uint8Array | undefined, changes: ReadonlyMap<number, Counters>): Uint8Array | undefined {
  const changedIds = [...changes.keys()].sort((a, b) => a - b);
  // Encoded into one scratch buffer (grown when needed) and copied out once: no array of numbers per shard.
  let length = 0;
  const reserve = (bytes: number) => {
    if (length + bytes <= scratchBytes.length) return;
    const grown = new Uint8Array(Math.max(scratchBytes.length * 2, length + bytes));
    grown.set(scratchBytes.subarray(0, length));
    scratchBytes = grown;
  };
  const varint = (value: number) => {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`rollup counter out of range: ${value}`);
    let rest = value;
    while (rest >= 128) {
      scratchBytes[length++] = (rest % 128) | 128;
      rest = Math.floor(rest / 128);
    }
    scratchBytes[length++] = rest;
  };
  let previous = -1;
  const emit = (id: number, counters: ArrayLike<number>) => {
    let nonZero = false;
    for (let index = 0; index < fieldCount && !nonZero; index++) nonZero = counters[index] !== 0;
    if (!nonZero) return;
    // A safe integer takes at most 8 varint bytes.
    reserve((fieldCount + 1) * 8);
    varint(id - previous - 1);
    for (let index = 0; index < fieldCount; index++) varint(counters[index]!);
    previous = id;
  };
  let next = 0;
  const merged = emptyCounters();
  const takeChangesBefore = (id: number) => {
    while (next < changedIds.length && changedIds[next]! < id) {
      emit(changedIds[next]!, changes.get(changedIds[next]!)!);
      next++;
    }
  };
  if (blob) {
    const scratch = emptyCounters();
    forEachShardEntry(blob, scratch, (id) => {
      takeChangesBefore(id);
      if (changedIds[next] === id) {
        const change = changes.get(id)!;
        for (let index = 0; index < fieldCount; index++) merged[index] = scratch[index]! + change[index]!;
        emit(id, merged);
        next++;
      } else emit(id, scratch);
    });
  }
  takeChangesBefore(Infinity);
  return length === 0 ? undefined : scratchBytes.slice(0, length);
}
