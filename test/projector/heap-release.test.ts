// When the projector thread gives its garbage back (src/projector/heap-release.ts): a full collection after a batch,
// at most once per interval, and nothing at all when node runs without --expose-gc.
import { describe, expect, it } from 'vitest';
import { createHeapRelease, exposedGc } from '../../src/projector/heap-release.ts';

describe('the projector heap release', () => {
  it.each([
    // [batches at these times (ms, the release was created at 0), collections expected]
    [[10, 500, 999], 0], // within the first second: none
    [[1000], 1], // the first accepted time: exactly one interval after the start
    [[999, 1000, 1001, 1999], 1], // once in an interval, however many batches
    [[1000, 2000, 3000], 3],
    [[1000, 1999, 2000], 2], // the last refused (1,999) and the next accepted (2,000) after a collection at 1,000
    [[5000], 1], // a long idle gap: one collection, not one per missed interval
  ])('batches at %j: %i collection(s)', (times, expected) => {
    let now = 0;
    let collections = 0;
    const release = createHeapRelease({ collect: () => collections++, now: () => now, intervalMs: 1000 });
    for (const time of times) {
      now = time;
      release();
    }
    expect(collections).toBe(expected);
  });

  it('does nothing without an exposed gc (node without --expose-gc)', () => {
    const hadGc = 'gc' in globalThis;
    const saved = (globalThis as { gc?: unknown }).gc;
    try {
      delete (globalThis as { gc?: unknown }).gc;
      expect(exposedGc()).toBeUndefined();
      expect(() => createHeapRelease({ intervalMs: 0 })()).not.toThrow();
    } finally {
      if (hadGc) (globalThis as { gc?: unknown }).gc = saved;
    }
  });

  it('uses the gc that --expose-gc installs', () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'gc');
    let calls = 0;
    try {
      (globalThis as { gc?: unknown }).gc = () => calls++;
      createHeapRelease({ intervalMs: 0 })();
      expect(calls).toBe(1);
    } finally {
      if (saved) Object.defineProperty(globalThis, 'gc', saved);
      else delete (globalThis as { gc?: unknown }).gc;
    }
  });
});
