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

export type Counters = Float64Array;

export function emptyCounters(): Counters {
  return new Float64Array(fieldCount);
}

function writeVarint(bytes: number[], value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`rollup counter out of range: ${value}`);
  let rest = value;
  while (rest >= 128) {
    bytes.push((rest % 128) | 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
}

/** Encodes value id → counters; values whose counters are all zero are left out. Throws on a negative counter. */
export function encodeShard(entries: Map<number, Counters>): Uint8Array | undefined {
  const ids = [...entries.keys()].sort((a, b) => a - b);
  const bytes: number[] = [];
  let previous = -1;
  for (const id of ids) {
    const counters = entries.get(id)!;
    if (counters.every((value) => value === 0)) continue;
    writeVarint(bytes, id - previous - 1);
    for (let index = 0; index < fieldCount; index++) writeVarint(bytes, counters[index]!);
    previous = id;
  }
  return bytes.length === 0 ? undefined : Uint8Array.from(bytes);
}

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

export function decodeShard(blob: Uint8Array | undefined): Map<number, Counters> {
  const entries = new Map<number, Counters>();
  if (!blob) return entries;
  const scratch = emptyCounters();
  forEachShardEntry(blob, scratch, (id) => entries.set(id, Float64Array.from(scratch)));
  return entries;
}
