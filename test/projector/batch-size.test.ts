// How the projector loop sizes its batches (projector-loop.ts): the configured size while it keeps up, doubling
// while a backlog lasts and batches stay short, halving when one holds sightline.db's write lock too long, never
// below the configured size nor above ten times it.
import { describe, expect, it } from 'vitest';
import { nextBatchSize } from '../../src/projector/projector-loop.ts';

describe('the projector batch size', () => {
  it.each([
    // [size, full, batchMs, next]
    [5_000, false, 10, 5_000], // caught up: back to the configured size
    [40_000, false, 3_000, 5_000],
    [5_000, true, 100, 10_000], // a backlog, short batches: double
    [40_000, true, 100, 50_000], // up to ten times the configured size
    [50_000, true, 100, 50_000],
    [20_000, true, 1_500, 20_000], // between 1 and 2.5 s: keep
    [20_000, true, 3_000, 10_000], // too long: halve
    [6_000, true, 3_000, 5_000], // never below the configured size
  ])('after %i events (full: %s) in %i ms: %i', (size, full, batchMs, next) => {
    expect(nextBatchSize(size, full, batchMs, 5_000)).toBe(next);
  });
});
