// The counter-shard codec: merging changes into a stored shard equals summing both maps by value id.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Counters, emptyCounters, fieldCount, forEachShardEntry, mergeIntoShard } from '../../src/rollup-format/counter-shard.ts';

function toCounters(values: number[]): Counters {
  const counters = emptyCounters();
  values.forEach((value, index) => (counters[index] = value));
  return counters;
}

function decode(blob: Uint8Array | undefined): Map<number, number[]> {
  const entries = new Map<number, number[]>();
  if (!blob) return entries;
  const scratch = emptyCounters();
  forEachShardEntry(blob, scratch, (id) => entries.set(id, [...scratch]));
  return entries;
}

const countersArbitrary = fc.array(fc.integer({ min: 0, max: 2 ** 40 }), { minLength: fieldCount, maxLength: fieldCount });
const shardArbitrary = fc.dictionary(fc.integer({ min: 0, max: 127 }).map(String), countersArbitrary, { maxKeys: 40 });

describe('mergeIntoShard', () => {
  it('adds changes to the stored entries, keeps ids sorted and drops values that end at zero', () => {
    fc.assert(
      fc.property(shardArbitrary, shardArbitrary, (stored, added) => {
        const base = mergeIntoShard(undefined, new Map(Object.entries(stored).map(([id, values]) => [Number(id), toCounters(values)])));
        const merged = decode(mergeIntoShard(base, new Map(Object.entries(added).map(([id, values]) => [Number(id), toCounters(values)]))));
        const expected = new Map<number, number[]>();
        for (const source of [stored, added]) {
          for (const [id, values] of Object.entries(source)) {
            const sum = expected.get(Number(id)) ?? Array<number>(fieldCount).fill(0);
            expected.set(Number(id), sum.map((value, index) => value + values[index]!));
          }
        }
        for (const [id, values] of expected) if (values.every((value) => value === 0)) expected.delete(id);
        expect([...merged.keys()]).toEqual([...merged.keys()].sort((a, b) => a - b));
        expect(new Map([...merged].sort(([a], [b]) => a - b))).toEqual(new Map([...expected].sort(([a], [b]) => a - b)));
      }),
    );
  });

  it('takes a value out when its counters return to zero, and refuses a negative counter', () => {
    const one = toCounters(Array<number>(fieldCount).fill(1));
    const stored = mergeIntoShard(undefined, new Map([[3, one], [9, one]]));
    const minusOne = toCounters(Array<number>(fieldCount).fill(-1));
    expect([...decode(mergeIntoShard(stored, new Map([[3, minusOne]]))).keys()]).toEqual([9]);
    expect(mergeIntoShard(mergeIntoShard(stored, new Map([[3, minusOne]])), new Map([[9, minusOne]]))).toBeUndefined();
    expect(() => mergeIntoShard(stored, new Map([[3, toCounters([-2, ...Array<number>(fieldCount - 1).fill(0)])]]))).toThrow(/out of range/);
  });
});
