// The import's external sort by time (src/imports/time-sorted-runs.ts) on real run files: every event comes back
// whole (each field, raw byte for byte, multi-byte text across the merge's 64 KiB reads), in time order with ties in
// the order added, from memory or from many runs, and close() removes the runs.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoredEventInput } from '../../src/event-store/stored-event.ts';
import { TimeSortedRuns } from '../../src/imports/time-sorted-runs.ts';
import { makeTempDir } from '../_setup.ts';

const baseMs = Date.UTC(2026, 2, 1);

/** Event n: its time scattered over 20 days (a stride), every third one sharing its time with the one before. */
function eventOf(n: number, rawPad: number): StoredEventInput {
  const ts = baseMs + ((n - (n % 3 === 2 ? 1 : 0)) * 7919 % 20_000) * 86_400;
  const raw = JSON.stringify({ id: `id-${n}`, text: `ü€😀\t"q"\n${'x'.repeat(rawPad)}`, n });
  return {
    site_id: 'site', id: `id-${n}`, dedup_key: n * 1_000_003, type: n % 5 === 0 ? 'signup' : 'pageview', ts, anon_id: `anon-${n % 17}`,
    user_id: n % 4 === 0 ? null : `user-${n}`, path: `/p/${n % 9}`, query: null, source: n % 2 ? 'direct' : 'ünïcode.example', utm_source: null,
    utm_medium: null, utm_campaign: null, browser: 'Firefox', os: null, device_type: 'desktop', country: 'DE', region: null, city: null,
    is_bot: (n % 11 === 0 ? 1 : 0) as 0 | 1, is_internal: 0, revenue_minor: n % 7 === 0 ? n * 100 : null, revenue_currency: n % 7 === 0 ? 'EUR' : null,
    raw, raw_reads_canonical: n % 2 === 0,
  };
}

/** The stable sort by time of what was added: ties in the order added. */
const expected = (events: StoredEventInput[]) => events.map((event, index) => ({ event, index })).sort((a, b) => a.event.ts - b.event.ts || a.index - b.index).map(({ event }) => event);

describe('TimeSortedRuns', () => {
  it.each([
    { name: 'in memory (one run, no file)', count: 500, rawPad: 10, runBytes: 1 << 24, runs: 0 },
    { name: 'a run per event', count: 40, rawPad: 10, runBytes: 1, runs: 40 },
    { name: 'runs of about 20 events', count: 1_000, rawPad: 10, runBytes: 20 * 600, runs: 10 },
    { name: 'runs larger than the merge reads (64 KiB)', count: 1_200, rawPad: 700, runBytes: 300_000, runs: 4 },
  ])('gives every event back whole and in time order: $name', ({ count, rawPad, runBytes, runs }) => {
    const directory = join(makeTempDir(), 'job.sort');
    const sorter = new TimeSortedRuns(directory, runBytes);
    const events = Array.from({ length: count }, (_, n) => eventOf(n, rawPad));
    for (const event of events) sorter.add(event);
    const sorted = [...sorter.sorted()];
    if (runs === 0) expect(sorter.runCount).toBe(0);
    else expect(sorter.runCount).toBeGreaterThanOrEqual(runs);
    expect(sorted).toEqual(expected(events));
    expect(sorted.map((event) => event.ts)).not.toEqual(events.map((event) => event.ts));
    sorter.close();
    expect(existsSync(directory)).toBe(false);
  });

  it('leaves its run files in place until close(), and nothing after', () => {
    const directory = join(makeTempDir(), 'job.sort');
    const sorter = new TimeSortedRuns(directory, 1_000);
    for (let n = 0; n < 30; n++) sorter.add(eventOf(n, 100));
    expect(readdirSync(directory).length).toBe(sorter.runCount);
    expect(sorter.runCount).toBeGreaterThan(1);
    sorter.close();
    expect(existsSync(directory)).toBe(false);
  });

  it('sorts nothing when nothing was added', () => {
    const sorter = new TimeSortedRuns(join(makeTempDir(), 'job.sort'));
    expect([...sorter.sorted()]).toEqual([]);
    sorter.close();
  });
});
