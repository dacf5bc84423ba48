// The stream hub on its own: it watches commits only while a stream is open, coalesces commits into one wake per
// event-loop turn, caps streams per site, per credential, per workspace and in total (each at its edge), polls when it has no
// commit source, and ends everything when closed. And the write queue's commit notice it relies on: once per
// committed group, never for a failed one, and at drain.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.ts';
import type { Committer } from '../../src/ingest/committer.ts';
import { type CommitWatcher, type WriteBatch, WriteQueue } from '../../src/ingest/write-queue.ts';
import type { AppMetrics } from '../../src/metrics/app-metrics.ts';
import { StreamHub } from '../../src/events/stream-hub.ts';
import { MetricsRegistry } from '../../src/metrics/registry.ts';
import { poll } from './_helpers.ts';

function fakeCommits() {
  const watchers = new Set<CommitWatcher>();
  return {
    watchers,
    watchCommits(watcher: CommitWatcher) {
      watchers.add(watcher);
      return () => watchers.delete(watcher);
    },
    commit: () => watchers.forEach((watcher) => watcher.committed(0)),
    close: () => watchers.forEach((watcher) => watcher.closed()),
  };
}

function subscriber() {
  const seen = { wakes: 0, ended: false };
  return { seen, wake: () => seen.wakes++, end: () => (seen.ended = true), bufferedBytes: () => 0 };
}

const limits = (perSite: number, perCredential = 100, total = 1000, perWorkspace = 1000) => ({ perSite, perCredential, perWorkspace, total });
/** A stream of `siteId` in workspace w1 opened with the admin token, unless `credential` or `workspaceId` says otherwise. */
const of = (siteId: string, credential = 'admin-token', workspaceId = 'w1') => ({ siteId, workspaceId, credential });

function refusalOf(attempt: () => unknown): unknown {
  try {
    attempt();
  } catch (error) {
    return error;
  }
  throw new Error('not refused');
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('StreamHub', () => {
  it('watches commits only while a stream is open, and wakes each stream once per turn however many commits', async () => {
    const commits = fakeCommits();
    const hub = new StreamHub({ limits: limits(5), commits });
    expect(commits.watchers.size).toBe(0);
    const first = subscriber();
    const second = subscriber();
    const leaveFirst = hub.join(of('a'), first);
    const leaveSecond = hub.join(of('b'), second);
    expect(commits.watchers.size).toBe(1);
    commits.commit();
    commits.commit();
    commits.commit();
    expect(first.seen.wakes).toBe(0);
    await nextTurn();
    expect([first.seen.wakes, second.seen.wakes]).toEqual([1, 1]);
    leaveFirst();
    leaveFirst();
    expect(commits.watchers.size).toBe(1);
    leaveSecond();
    expect(commits.watchers.size).toBe(0);
  });

  it('refuses a stream over the per-site cap with 429 and counts a stream that left only once', () => {
    const hub = new StreamHub({ limits: limits(2), commits: fakeCommits() });
    const leave = hub.join(of('a'), subscriber());
    hub.join(of('a', 'api-key:1'), subscriber());
    const refusal = refusalOf(() => hub.join(of('a', 'api-key:2'), subscriber()));
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ status: 429, code: 'too_many_streams', message: expect.stringContaining('This site'), headers: { 'retry-after': '5' } });
    hub.join(of('b'), subscriber());
    leave();
    leave();
    hub.join(of('a'), subscriber());
    expect(() => hub.join(of('a'), subscriber())).toThrow(ApiError);
  });

  it('caps the streams of one credential across sites: the last one in, the next one refused until one leaves', () => {
    const hub = new StreamHub({ limits: limits(5, 3), commits: fakeCommits() });
    const leaves = ['a', 'b', 'c'].map((site) => hub.join(of(site, 'api-key:1'), subscriber()));
    const refusal = refusalOf(() => hub.join(of('d', 'api-key:1'), subscriber()));
    expect(refusal).toMatchObject({ status: 429, code: 'too_many_streams', message: expect.stringContaining('This credential'), headers: { 'retry-after': '5' } });
    // Another credential, on the same sites, is not affected; neither is the admin token.
    hub.join(of('a', 'api-key:2'), subscriber());
    hub.join(of('d'), subscriber());
    leaves[0]!();
    hub.join(of('d', 'api-key:1'), subscriber());
    expect(() => hub.join(of('e', 'api-key:1'), subscriber())).toThrow(ApiError);
  });

  it('caps the streams of one workspace over its keys and sites: the last one in, the next one refused, another workspace unaffected', () => {
    const hub = new StreamHub({ limits: limits(5, 2, 1000, 3), commits: fakeCommits() });
    // Three keys of w1, each under its own cap, on three sites: the third stream is the workspace's last.
    const leaves = [of('a', 'api-key:1'), of('b', 'api-key:2'), of('c', 'api-key:3')].map((owner) => hub.join(owner, subscriber()));
    for (const owner of [of('d', 'api-key:4'), of('a'), of('a', 'api-key:1')]) {
      const refusal = refusalOf(() => hub.join(owner, subscriber()));
      expect(refusal, JSON.stringify(owner)).toMatchObject({ status: 429, code: 'too_many_streams', message: expect.stringContaining('This workspace'), headers: { 'retry-after': '5' } });
    }
    // Another workspace's first stream, with the same admin token, is not refused.
    hub.join(of('x', 'admin-token', 'w2'), subscriber());
    leaves[1]!();
    hub.join(of('d', 'api-key:4'), subscriber());
    expect(() => hub.join(of('e', 'api-key:5'), subscriber())).toThrow(ApiError);
  });

  it('caps the streams of the server whoever opens them: the last one in, the next one refused until one leaves', () => {
    const hub = new StreamHub({ limits: limits(5, 5, 4), commits: fakeCommits() });
    const leaves = [of('a', 'api-key:1'), of('b', 'api-key:2'), of('c', 'api-key:3'), of('d')].map((owner) => hub.join(owner, subscriber()));
    const refusal = refusalOf(() => hub.join(of('e', 'api-key:4'), subscriber()));
    expect(refusal).toMatchObject({ status: 429, code: 'too_many_streams', message: expect.stringContaining('The server'), headers: { 'retry-after': '5' } });
    leaves[3]!();
    hub.join(of('e', 'api-key:4'), subscriber());
    expect(() => hub.join(of('f'), subscriber())).toThrow(ApiError);
  });

  it('counts refusals by cap and the bytes open streams hold, in the registry it is given', () => {
    const registry = new MetricsRegistry();
    const hub = new StreamHub({ limits: limits(1, 2, 3, 2), commits: fakeCommits(), metrics: registry });
    hub.join(of('a', 'api-key:1'), { ...subscriber(), bufferedBytes: () => 100 });
    hub.join(of('b', 'api-key:1'), { ...subscriber(), bufferedBytes: () => 20 });
    expect(() => hub.join(of('a', 'api-key:2'), subscriber())).toThrow(ApiError);
    expect(() => hub.join(of('c', 'api-key:1'), subscriber())).toThrow(ApiError);
    expect(() => hub.join(of('c', 'api-key:2'), subscriber())).toThrow(ApiError);
    hub.join(of('c', 'api-key:2', 'w2'), subscriber());
    expect(() => hub.join(of('d', 'api-key:3', 'w3'), subscriber())).toThrow(ApiError);
    hub.metrics.observeBuffered(700);
    hub.metrics.observeBuffered(300);
    const text = registry.render();
    for (const line of [
      'sightline_event_streams_open 3',
      'sightline_event_stream_buffered_bytes 120',
      'sightline_event_stream_buffered_bytes_max 700',
      'sightline_event_streams_refused_total{cap="site"} 1',
      'sightline_event_streams_refused_total{cap="credential"} 1',
      'sightline_event_streams_refused_total{cap="workspace"} 1',
      'sightline_event_streams_refused_total{cap="total"} 1',
    ]) {
      expect(text.split('\n')).toContain(line);
    }
  });

  it('ends every stream when the queue closes, and refuses new ones with 503', () => {
    const commits = fakeCommits();
    const hub = new StreamHub({ limits: limits(5), commits });
    const streams = [subscriber(), subscriber()];
    streams.forEach((stream, index) => hub.join(of(`s${index}`), stream));
    commits.close();
    expect(streams.map((stream) => stream.seen.ended)).toEqual([true, true]);
    expect(commits.watchers.size).toBe(0);
    expect(() => hub.join(of('s0'), subscriber())).toThrow(expect.objectContaining({ status: 503 }));
  });

  it('without a commit source, polls while a stream is open', async () => {
    const hub = new StreamHub({ limits: limits(5), pollMs: 5 });
    const stream = subscriber();
    const leave = hub.join(of('a'), stream);
    await poll(async () => (stream.seen.wakes >= 2 ? true : undefined));
    leave();
    hub.closeAll();
  });
});

describe('WriteQueue.watchCommits', () => {
  const metrics = { setQueueDepth: () => {}, flushLatencyMs: { observe: () => {} }, commitBatchEvents: { observe: () => {} } } as unknown as AppMetrics;
  const batch = (events: number): WriteBatch => ({ events: new Array(events).fill({}), quarantined: [] }) as unknown as WriteBatch;

  it('tells watchers once per committed group, never for a failed one, and once at drain', async () => {
    let fail = false;
    const groups: number[] = [];
    const committer: Committer = {
      kind: 'inline',
      commit: async (batches) => {
        if (fail) throw new Error('disk full');
        groups.push(batches.length);
        return { outcomes: batches.map(() => ({ ok: true as const, result: { accepted: 1, bots: 0, duplicates: 0, quarantined: 0 } })), lastSeq: groups.length, commitMs: 0 };
      },
      finishCheckpoint: () => undefined,
      close: async () => {},
    };
    const queue = new WriteQueue(committer, { now: () => 0 }, metrics);
    const told: string[] = [];
    const stop = queue.watchCommits({ committed: (seq) => told.push(`committed ${seq}`), closed: () => told.push('closed') });
    // Three requests of many events in one turn: one group, one notice.
    await Promise.all([queue.submit(batch(100)), queue.submit(batch(50)), queue.submit(batch(1))]);
    expect(groups).toEqual([3]);
    // Watchers hear the highest seq committed so far (the projector's target).
    expect(told).toEqual(['committed 1']);
    expect(queue.committedSeq()).toBe(1);
    fail = true;
    await expect(queue.submit(batch(1))).rejects.toMatchObject({ code: 'overloaded' });
    expect(told).toEqual(['committed 1']);
    fail = false;
    stop();
    await queue.submit(batch(1));
    expect(told).toEqual(['committed 1']);
    expect(queue.committedSeq()).toBe(2);
    expect(queue.committedSeq(10)).toBe(10);
    queue.watchCommits({ committed: (seq) => told.push(`committed ${seq}`), closed: () => told.push('closed') });
    await queue.drain();
    expect(told).toEqual(['committed 1', 'closed']);
  });
});
