// A projector batch keeps its visitors' visits in memory (src/projector/visits.ts): read once per visitor and
// stretch of time the batch touches, assigned event by event, written once. These scenarios cut a stream into
// batches where that can go wrong (a visit spanning batches, visits merged in memory, a stored visit merged with
// one the batch started, events of one visitor far apart in one batch, the gap's edges) and check the stored visits
// and the summary against the visits a from-scratch computation gives. The batch then hands its subscribers the
// visits it changed (as stored, with their visitor numbers and the batch's events in them) and the ones a merge
// removed: the last scenarios check that handover against the stored rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchSubscribers } from '../../src/batch-subscribers.ts';
import type { BatchSubscriber, BatchVisitChanges } from '../../src/projector/project-batch.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { send, wireEvent } from '../events/_helpers.ts';

const clock = manualClock('2026-05-20T12:00:00.000Z');
const start = Date.parse('2026-05-10T08:00:00.000Z');
const minute = 60_000;

interface Scenario {
  name: string;
  /** Batches in order, each a list of events sent then projected together: [anon_id, ms after `start`, path]. */
  batches: [string, number, string][][];
  /** The visits expected: [anon_id, start, end (ms after `start`), events, entry path, exit path]. */
  visits: [string, number, number, number, string, string][];
}

const scenarios: Scenario[] = [
  {
    name: 'a visit spanning two batches',
    batches: [[['a', 0, '/1'], ['a', 10 * minute, '/2']], [['a', 20 * minute, '/3']]],
    visits: [['a', 0, 20 * minute, 3, '/1', '/3']],
  },
  {
    name: 'a late event merging two visits the same batch started',
    batches: [[['a', 0, '/1'], ['a', 50 * minute, '/3'], ['a', 25 * minute, '/2']]],
    visits: [['a', 0, 50 * minute, 3, '/1', '/3']],
  },
  {
    name: 'a stored visit merged with a later one the batch started',
    batches: [[['a', 0, '/1']], [['a', 50 * minute, '/3'], ['a', 25 * minute, '/2']]],
    visits: [['a', 0, 50 * minute, 3, '/1', '/3']],
  },
  {
    name: 'a stored visit merged with an earlier one the batch started',
    batches: [[['a', 50 * minute, '/3']], [['a', 0, '/1'], ['a', 25 * minute, '/2']]],
    visits: [['a', 0, 50 * minute, 3, '/1', '/3']],
  },
  {
    name: 'two stored visits merged, then extended in the same batch',
    batches: [[['a', 0, '/1'], ['a', 50 * minute, '/3']], [['a', 25 * minute, '/2'], ['a', 70 * minute, '/4']]],
    visits: [['a', 0, 70 * minute, 4, '/1', '/4']],
  },
  {
    name: 'an earlier first event for a stored visit',
    batches: [[['a', 20 * minute, '/2'], ['a', 30 * minute, '/3']], [['a', 0, '/1']]],
    visits: [['a', 0, 30 * minute, 3, '/1', '/3']],
  },
  {
    name: 'events of one visitor days apart in one batch, near stored visits',
    batches: [
      [['a', 0, '/1'], ['a', 3 * 1440 * minute, '/5']],
      [['a', 20 * minute, '/2'], ['a', 1440 * minute, '/3'], ['a', 3 * 1440 * minute - 29 * minute, '/4'], ['b', 0, '/1']],
    ],
    visits: [
      ['a', 0, 20 * minute, 2, '/1', '/2'],
      ['a', 1440 * minute, 1440 * minute, 1, '/3', '/3'],
      ['a', 3 * 1440 * minute - 29 * minute, 3 * 1440 * minute, 2, '/4', '/5'],
      ['b', 0, 0, 1, '/1', '/1'],
    ],
  },
  {
    name: 'a stored visit that started more than a gap before the batch\'s first event of its visitor',
    batches: [[['a', 0, '/1'], ['a', 25 * minute, '/2'], ['a', 50 * minute, '/3']], [['a', 70 * minute, '/4']]],
    visits: [['a', 0, 70 * minute, 4, '/1', '/4']],
  },
  {
    name: 'a gap of exactly 30 minutes starts a new visit, one millisecond less does not',
    batches: [[['a', 30 * minute, '/2']], [['a', 0, '/1'], ['a', 60 * minute, '/3'], ['a', 90 * minute - 1, '/4']]],
    visits: [
      ['a', 0, 0, 1, '/1', '/1'],
      ['a', 30 * minute, 30 * minute, 1, '/2', '/2'],
      ['a', 60 * minute, 90 * minute - 1, 2, '/3', '/4'],
    ],
  },
  {
    name: 'a stored visit reached only from the far end of a stretch of events',
    batches: [[['a', 100 * minute, '/9']], [['a', 0, '/1'], ['a', 25 * minute, '/2'], ['a', 50 * minute, '/3'], ['a', 75 * minute, '/4']]],
    visits: [['a', 0, 100 * minute, 5, '/1', '/9']],
  },
];

describe('visits assigned in memory, batch by batch', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock, projector: 'manual', projectionWaitMs: 50 });
  });
  afterAll(() => server.close());

  it.each(scenarios.map((scenario, index) => ({ ...scenario, site: `bv${index}` })))('$name', async ({ site, batches, visits }) => {
    await seedWorkspace(server, `ws-${site}`, { sites: [site] });
    server.app.projection.projectNow();
    for (const batch of batches) {
      await send(
        server,
        site,
        batch.map(([anon, at, path]) => wireEvent(site, { anon_id: anon, ts: new Date(start + at).toISOString(), url: `https://s.example${path}` })),
      );
      expect(server.app.projection.projectNow({ maxEvents: batch.length })).toMatchObject({ events: batch.length });
    }
    const stored = server.db
      .prepare(`SELECT anon_id, start_ts, end_ts, events, entry_path, exit_path FROM sessions WHERE site_id = ? ORDER BY anon_id, start_ts`)
      .raw()
      .all(site);
    expect(stored).toEqual(visits.map(([anon, from, to, events, entry, exit]) => [anon, start + from, start + to, events, entry, exit]));
    const day = (at: number) => new Date(start + at).toISOString().slice(0, 10);
    const last = Math.max(...visits.map(([, , to]) => to));
    const summary = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?from=${day(0)}&to=${day(last)}`);
    expect(summary.body.data).toMatchObject({
      visits: visits.length,
      visitors: new Set(visits.map(([anon]) => anon)).size,
      pageviews: visits.reduce((sum, [, , , events]) => sum + events, 0),
      bounce_rate: Math.round((10_000 * visits.filter(([, , , events]) => events === 1).length) / visits.length) / 10_000,
    });
  });

  it('moves an event to the source of its visit\'s new first event, which came later in the same batch', async () => {
    const site = 'bv-moved';
    await seedWorkspace(server, `ws-${site}`, { sites: [site] });
    server.app.projection.projectNow();
    const at = (ms: number) => new Date(start + ms).toISOString();
    await send(server, site, [
      wireEvent(site, { anon_id: 'a', ts: at(10 * minute), url: 'https://s.example/2', referrer: 'https://www.google.com/search' }),
      wireEvent(site, { anon_id: 'a', ts: at(0), url: 'https://s.example/1', referrer: 'https://news.example/x' }),
    ]);
    // One batch: the second event reads the first's row of the visitor index, written in the same batch.
    expect(server.app.projection.projectNow({ maxEvents: 2 })).toMatchObject({ events: 2 });
    const day = at(0).slice(0, 10);
    const sources = await server.request('GET', `/v1/sites/${site}/reports/sources-v2?from=${day}&to=${day}`);
    expect(sources.body.data.rows.map((row: { source: string; pageviews: number }) => [row.source, row.pageviews])).toEqual([['news.example', 2]]);
  });
});

const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

interface Handover {
  name: string;
  /** Batches in order: [anon_id, ms after `start`, path, kind (a bot's or internal traffic's event)]. */
  batches: [string, number, string, ('bot' | 'internal')?][][];
  /** What the last batch hands over: [anon_id, internal, start, end, the batch's paths in the visit, grew from stored]. */
  changed: [string, 0 | 1, number, number, string[], boolean][];
  /** The stored visits a merge removed: [anon_id, start, end]. */
  removed: [string, number, number][];
}

const handovers: Handover[] = [
  {
    name: 'new visits only, their events out of order (ts order, ties in ingest order)',
    batches: [[['a', 20 * minute, '/3'], ['a', 0, '/1'], ['a', 10 * minute, '/2b'], ['a', 10 * minute, '/2a'], ['b', 0, '/1']]],
    changed: [
      ['a', 0, 0, 20 * minute, ['/1', '/2b', '/2a', '/3'], false],
      ['b', 0, 0, 0, ['/1'], false],
    ],
    removed: [],
  },
  {
    name: 'a stored visit grown, an untouched one left out',
    batches: [[['a', 0, '/1'], ['a', 300 * minute, '/9']], [['a', 10 * minute, '/2']]],
    changed: [['a', 0, 0, 10 * minute, ['/2'], true]],
    removed: [],
  },
  {
    name: 'two visits the batch started, merged in memory',
    batches: [[['a', 0, '/1'], ['a', 50 * minute, '/3'], ['a', 25 * minute, '/2']]],
    changed: [['a', 0, 0, 50 * minute, ['/1', '/2', '/3'], false]],
    removed: [],
  },
  {
    name: 'a stored visit merged with an earlier one the batch started (stored under the stored id)',
    batches: [[['a', 50 * minute, '/3']], [['a', 0, '/1'], ['a', 25 * minute, '/2']]],
    changed: [['a', 0, 0, 50 * minute, ['/1', '/2'], true]],
    removed: [],
  },
  {
    name: 'two stored visits merged: the later one removed',
    batches: [[['a', 0, '/1'], ['a', 50 * minute, '/3']], [['a', 25 * minute, '/2']]],
    changed: [['a', 0, 0, 50 * minute, ['/2'], true]],
    removed: [['a', 50 * minute, 50 * minute]],
  },
  {
    name: 'bots in no visit, internal traffic in a visit of its own',
    batches: [[['a', 0, '/1'], ['a', 1 * minute, '/bot', 'bot'], ['a', 2 * minute, '/staff', 'internal'], ['a', 3 * minute, '/2']]],
    changed: [
      ['a', 0, 0, 3 * minute, ['/1', '/2'], false],
      ['a', 1, 2 * minute, 2 * minute, ['/staff'], false],
    ],
    removed: [],
  },
];

describe('what a batch hands its subscribers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock, projector: 'manual', projectionWaitMs: 50 });
  });
  afterAll(() => server.close());

  it.each(handovers.map((handover, index) => ({ ...handover, site: `ho${index}` })))('$name', async ({ site, batches, changed, removed }) => {
    await seedWorkspace(server, `ws-${site}`, { sites: [site] });
    server.app.projection.projectNow();
    const handed: BatchVisitChanges[] = [];
    // After the app's own subscribers, as the projector runs them.
    const record: BatchSubscriber = (_db, _events, _now, visits) => handed.push(visits);
    for (const batch of batches) {
      await send(
        server,
        site,
        batch.map(([anon, at, path, kind]) =>
          wireEvent(site, {
            anon_id: anon,
            ts: new Date(start + at).toISOString(),
            url: `https://s.example${path}`,
            ...(kind === 'bot' ? { context: { user_agent: googlebot } } : kind === 'internal' ? { internal: true } : {}),
          }),
        ),
      );
      expect(server.app.projection.projectNow({ maxEvents: batch.length, subscribers: [...batchSubscribers, record] })).toMatchObject({ events: batch.length });
    }
    expect(handed).toHaveLength(batches.length);
    const last = handed.at(-1)!;
    const summary = last.changed
      .map(({ visit, events, grewFromStored }) => [visit.anon_id, visit.is_internal, visit.start_ts - start, visit.end_ts - start, events.map((event) => event.path), grewFromStored])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1]));
    expect(summary).toEqual(changed);
    // Each as stored now (new visits with the id the insert gave), with its visitor's number.
    const row = server.db.prepare('SELECT * FROM sessions WHERE id = ?');
    const number = server.db.prepare('SELECT vid FROM report_visitors WHERE site_id = ? AND anon_id = ?').pluck();
    for (const { visit, vid } of last.changed) {
      expect(row.get(visit.id)).toEqual(visit);
      expect(vid).toBe(number.get(site, visit.anon_id));
    }
    expect(last.removed.map((visit) => [visit.anon_id, visit.start_ts - start, visit.end_ts - start])).toEqual(removed);
    for (const visit of last.removed) expect(row.get(visit.id)).toBeUndefined();
  });
});
