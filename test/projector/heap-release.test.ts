// When the projector thread gives its garbage back (src/projector/heap-release.ts): a full collection after a batch
// that found it caught up, at most once per interval, never during a catch-up, and nothing at all when node runs
// without --expose-gc.
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHeapRelease, exposedGc } from '../../src/projector/heap-release.ts';
import { ensureBuilt, repositoryRoot } from '../cli/cli-helpers.ts';
import { browserEvent, cleanExit, createSite, ingest, shippedServers, utcDate } from '../e2e/_server.ts';

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

// The shipped launcher as users run it (bin/sightline through its `env -S` line, so with --expose-gc): the projector
// thread has gc and collects after its batches, and what it projects is the same.
describe('the projector under bin/sightline\'s flags', () => {
  const servers = shippedServers({ executable: join(repositoryRoot, 'bin', 'sightline') });
  vi.setConfig({ testTimeout: 120_000 });
  beforeAll(ensureBuilt, 120_000);
  afterEach(() => servers.disposeAll());

  it('counts every acknowledged event, batch after batch, and drains on SIGTERM', async () => {
    const server = await servers.start();
    const siteId = 'heap-release';
    await createSite(server, siteId);
    const day = utcDate(-1);
    // [events sent in this request, pageviews the report counts after it]
    const rounds: Array<[number, number]> = [
      [1, 1],
      [20, 21],
      [200, 221],
    ];
    for (const [count, pageviews] of rounds) {
      const events = Array.from({ length: count }, (_, index) => browserEvent(siteId, { anon_id: `visitor-${index % 7}`, ts: `${day}T12:${String(index % 60).padStart(2, '0')}:00.000Z` }));
      await ingest(server, '/v1/events', siteId, events);
      const answer = await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=${day}&to=${day}&interval=day`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.meta.completeness.complete, server.output()).toBe(true);
      expect(answer.body.data.pageviews, server.output()).toBe(pageviews);
    }
    expect(server.output()).not.toMatch(/error|Error/);
    expect(await server.stop()).toEqual(cleanExit);
  });
});
