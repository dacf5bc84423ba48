// When the projector thread gives its garbage back (src/projector/heap-release.ts): a full collection after a batch
// that found it caught up, at most once per interval, never during a catch-up, and nothing at all when node runs
// without --expose-gc.
import { describe, expect, it } from 'vitest';
import { createHeapRelease, exposedGc } from '../../src/projector/heap-release.ts';

describe('the projector heap release', () => {
  it.each([
    // [batches at these times (ms, the release was created at 0), each caught up (c) or full (f), collections expected]
    [[10, 500, 999], 'ccc', 0], // within the first second: none
    [[1000], 'c', 1], // the first accepted time: exactly one interval after the start
    [[999, 1000, 1001, 1999], 'cccc', 1], // once in an interval, however many batches
    [[1000, 2000, 3000], 'ccc', 3],
    [[1000, 1999, 2000], 'ccc', 2], // the last refused (1,999) and the next accepted (2,000) after a collection at 1,000
    [[5000], 'c', 1], // a long idle gap: one collection, not one per missed interval
    [[1000, 2000, 3000], 'fff', 0], // a catch-up: full batches, never
    [[1000, 2000, 2500], 'ffc', 1], // the first batch that finds it caught up collects at once
  ])('batches at %j (%s): %i collection(s)', (times, kinds, expected) => {
    let now = 0;
    let collections = 0;
    const release = createHeapRelease({ collect: () => collections++, now: () => now, intervalMs: 1000 });
    times.forEach((time, index) => {
      now = time;
      release(kinds[index] === 'c');
    });
    expect(collections).toBe(expected);
  });

  it('does nothing without an exposed gc (node without --expose-gc)', () => {
    const hadGc = 'gc' in globalThis;
    const saved = (globalThis as { gc?: unknown }).gc;
    try {
      delete (globalThis as { gc?: unknown }).gc;
      expect(exposedGc()).toBeUndefined();
      expect(() => createHeapRelease({ intervalMs: 0 })(true)).not.toThrow();
    } finally {
      if (hadGc) (globalThis as { gc?: unknown }).gc = saved;
    }
  });

  it('uses the gc that --expose-gc installs', () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'gc');
    let calls = 0;
    try {
      (globalThis as { gc?: unknown }).gc = () => calls++;
      createHeapRelease({ intervalMs: 0 })(true);
      expect(calls).toBe(1);
    } finally {
      if (saved) Object.defineProperty(globalThis, 'gc', saved);
      else delete (globalThis as { gc?: unknown }).gc;
    }
  });
});
