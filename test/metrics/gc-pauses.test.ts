// sightline_gc_pause_ms: the HTTP thread's garbage-collection pauses by kind, beside its event-loop delay. A pause
// holds every request of the thread, so /metrics shows when the collector was what held the loop.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../_setup.ts';

/** The series of one histogram family in /metrics text: `{ kind: { count, sum, buckets } }`. */
function gcSeries(text: string): Map<string, { count: number; sum: number; buckets: [number, number][] }> {
  const series = new Map<string, { count: number; sum: number; buckets: [number, number][] }>();
  const entry = (kind: string) => {
    if (!series.has(kind)) series.set(kind, { count: 0, sum: 0, buckets: [] });
    return series.get(kind)!;
  };
  for (const line of text.split('\n')) {
    const bucket = /^sightline_gc_pause_ms_bucket\{kind="(\w+)",le="([^"]+)"\} (\d+)$/.exec(line);
    if (bucket) entry(bucket[1]!).buckets.push([bucket[2] === '+Inf' ? Number.POSITIVE_INFINITY : Number(bucket[2]), Number(bucket[3])]);
    const total = /^sightline_gc_pause_ms_(count|sum)\{kind="(\w+)"\} ([\d.e+-]+)$/.exec(line);
    if (total) entry(total[2]!)[total[1] as 'count' | 'sum'] = Number(total[3]);
  }
  return series;
}

/** Allocates `megabytes` of short-lived objects: more than any young generation holds, so scavenges must run. */
function makeGarbage(megabytes: number): number {
  let kept = 0;
  for (let index = 0; index < megabytes * 1024; index++) kept += new Array(128).fill(index).length;
  return kept;
}

describe('/metrics: garbage-collection pauses of the HTTP thread', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('counts the scavenges that garbage on the thread causes, in buckets that add up', async () => {
    server = await startTestServer();
    const before = gcSeries((await server.request('GET', '/metrics')).text).get('minor')?.count ?? 0;
    expect(makeGarbage(256)).toBeGreaterThan(0);
    // Performance entries are delivered to observers after the task that made them.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const text = (await server.request('GET', '/metrics')).text;
    expect(text).toMatch(/^# TYPE sightline_gc_pause_ms histogram$/m);
    const minor = gcSeries(text).get('minor');
    expect(minor).toBeDefined();
    expect(minor!.count).toBeGreaterThan(before);
    expect(minor!.sum).toBeGreaterThan(0);
    const counts = minor!.buckets.map(([, count]) => count);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(minor!.buckets.at(-1)).toEqual([Number.POSITIVE_INFINITY, minor!.count]);
    expect(minor!.buckets.map(([bound]) => bound)).toEqual([0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, Number.POSITIVE_INFINITY]);
  });
});
