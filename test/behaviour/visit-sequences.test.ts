// The stored page sequences journeys and page flow read (visit_sequences, src/projector/visit-sequences.ts) against
// the recomputation over the raw events (readVisitSequences, which cuts the events into visits): after every change
// of visits, for every day and the whole month, with and without internal traffic, both must hold the same visits.
// Each change is its own scenario: a visit that grows, one that gains an earlier start, two visits an event merges
// (a pageview, a custom event), a GDPR delete, a retention purge that cuts a visit at the first kept day, the
// reconciliation (everything derived again, in small batches), a site's deletion, and the upgrade's backfill
// (crashed halfway, then resumed at the next start). Each comparison is made with and without visit filters: a row
// keeps its visit's filter values (schema 31), which must be the first kept event's after an earlier event, a merge
// and a purge cut; the upgrade to 31 fills them for the rows already stored. A batch builds a new visit's row from
// the events it holds and reads only a visit that grew from stored events: batches of several events (visits made,
// merged and grown in one batch, out-of-order and late events, bots and internal traffic beside them) check the table
// after every batch; a stray row at a new visit's key is replaced.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.ts';
import { parseSchemaSections } from '../../src/db/schema.ts';
import { databasePath } from '../../src/server.ts';
import { readProjectorPosition } from '../../src/projector/queries/projector-state.ts';
import { reconcileProjection } from '../../src/projector/reconcile.ts';
import { backfillVisitSequences } from '../../src/projector/visit-sequences.ts';
import type { Selection } from '../../src/read-model/questions.ts';
import { readStoredVisitSequences, readVisitSequences, storedSequencesAnswer, type VisitSequences } from '../../src/read-model/sqlite/visit-sequences.ts';
import { Dim } from '../../src/vocabulary/dimensions.ts';
import type { RawEventRow } from '../../src/event-store/queries/raw-window-events.ts';
import { narrowVisitsAnswer, streamNarrowVisits } from '../../src/read-model/sqlite/narrow-visits.ts';
import { matchesVisitFilters } from '../../src/read-model/sqlite/raw-grouped.ts';
import { type RawVisit, streamRawVisits } from '../../src/read-model/sqlite/raw-visits.ts';
import { dayOf } from '../../src/vocabulary/periods.ts';
import type { ReportFilters } from '../../src/vocabulary/report-filters.ts';
import { makeEvent, makeTempDir, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { repositoryRoot } from '../cli/cli-helpers.ts';

// Today is 2026-03-20: a retention period of 10 days keeps 2026-03-10 on.
const clock = manualClock('2026-03-20T12:00:00.000Z');
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
/** An event from a phone, arriving from a Google search: another source, device, browser and os than view()'s. */
const fromPhone: Event = { referrer: 'https://www.google.com/search', context: { user_agent: iphone, ip: '81.2.69.142' } };
const month = { from: '2026-03-01', to: '2026-03-20' };
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

type Event = Record<string, unknown>;
const at = (time: string) => `2026-03-18T${time}:00.000Z`;
function view(siteId: string, anonId: string, ts: string, path: string, extra: Event = {}): Event {
  return makeEvent(siteId, { anon_id: anonId, ts, type: 'pageview', url: `https://s.example${path}`, context: { user_agent: chrome }, ...extra });
}

async function send(server: TestServer, siteId: string, events: Event[]): Promise<void> {
  const response = await server.request('POST', '/s2s/events', { token: siteId, body: events });
  expect(response.status, response.text).toBe(202);
  // Projected before the next send: each send is a batch of its own.
  await server.projected();
}

function canonical(visits: VisitSequences): string[] {
  return visits.sequences.map((sequence, index) => `${visits.visitors[index]}: ${sequence.map((id) => visits.paths[id]).join(' > ')}`).sort();
}

/** The visit filters compared: each of the seven, values of both kinds of visit, two at once, one never seen. */
const filterChoices: ReportFilters[] = [
  {},
  { source: ['google.com'] },
  { source: ['direct', 'google.com'] },
  { device: ['mobile'] },
  { device: ['desktop'] },
  { browser: ['Chrome'] },
  { os: ['iOS'] },
  { country: ['GB'] },
  { region: ['ENG'] },
  { city: ['London'] },
  { source: ['direct'], browser: ['Chrome'] },
  { source: ['google.com'], path: ['/ma/b'] },
  { country: ['ZZ'] },
];

/** Every day of the month and the month itself, both traffic kinds, each visit filter: the table holds what the events give. */
function expectTableEqualsEvents(db: Db, siteIds: string[], workspaceId: string): void {
  const position = readProjectorPosition(db);
  const first = dayOf(Date.parse(`${month.from}T00:00:00Z`));
  const last = dayOf(Date.parse(`${month.to}T00:00:00Z`));
  const ranges = [{ fromDay: first, toDay: last }, ...Array.from({ length: last - first + 1 }, (_, index) => ({ fromDay: first + index, toDay: first + index }))];
  for (const range of ranges) {
    for (const withInternal of [false, true]) {
      for (const filters of filterChoices) {
        const selection: Selection = { scope: { siteIds, workspaceId }, range, filters, withInternal };
        expect(storedSequencesAnswer(db, selection)).toBe(true);
        const label = `days ${range.fromDay}-${range.toDay}, internal ${withInternal}, ${JSON.stringify(filters)}`;
        expect(canonical(readStoredVisitSequences(db, selection)), label).toEqual(canonical(readVisitSequences(db, selection, position)));
        // The rows' packed events stand in for the raw events (schema 32): the same visits, event for event.
        expect(narrowVisitsAnswer(db, position)).toBe(true);
        const input = { siteIds, fromDay: range.fromDay, toDay: range.toDay, withInternal };
        const narrow: RawVisit[] = [];
        streamNarrowVisits(db, { ...input, filters }, (visit) => narrow.push(visit));
        const raw: RawVisit[] = [];
        streamRawVisits(db, { ...input, maxSeq: position }, (visit) => raw.push(visit));
        expect(canonicalVisits(narrow.filter((visit) => matchesVisitFilters(visit.entry, filters))), label).toEqual(canonicalVisits(raw.filter((visit) => matchesVisitFilters(visit.entry, filters))));
      }
    }
  }
}

/** Visits as the raw pass reads them: visitor, span, entry values and campaign, exit, and every event's time, type, path, revenue. */
function canonicalVisits(visits: readonly RawVisit[]): string[] {
  const revenueOf = (event: RawEventRow) => (event.revenue_minor !== null && event.revenue_currency !== null ? `${event.revenue_minor} ${event.revenue_currency}` : '');
  return visits
    .map((visit) => {
      const { entry } = visit;
      const values = [entry.source, entry.utm_source, entry.utm_medium, entry.utm_campaign, entry.device_type, entry.browser, entry.os, entry.country, entry.region, entry.city];
      const events = visit.events.map((event) => `${event.ts} ${event.seq} ${event.type} ${event.path} ${revenueOf(event)}`);
      return JSON.stringify([visit.site_id, visit.anon_id, visit.is_internal, visit.start_ts, visit.end_ts, values, visit.exit?.path ?? null, events]);
    })
    .sort();
}

/** The visit filters of every stored row of a site, as texts, by start. */
function storedAttributes(db: Db, siteId: string): Record<string, unknown>[] {
  const text = (dim: number, column: string) => `(SELECT value FROM report_values v WHERE v.site_id = s.site_id AND v.dim = ${dim} AND v.value_id = s.${column})`;
  return db
    .prepare(
      `SELECT start_ts, ${text(Dim.source, 'source_id')} AS source, ${text(Dim.device, 'device_id')} AS device, ${text(Dim.browser, 'browser_id')} AS browser,
              ${text(Dim.os, 'os_id')} AS os, ${text(Dim.country, 'country_id')} AS country, ${text(Dim.city, 'city_id')} AS city
         FROM visit_sequences s WHERE site_id = ? ORDER BY start_ts`,
    )
    .all(siteId) as Record<string, unknown>[];
}

async function journeysFrom(server: TestServer, siteId: string, startPath: string, filters: Record<string, string> = {}): Promise<unknown> {
  const response = await server.request('GET', `/sites/${siteId}/reports/journeys-v2?${new URLSearchParams({ ...month, steps: '6', start_path: startPath, ...filters })}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data.paths;
}

describe('visit_sequences follows every change of visits', () => {
  let server: TestServer;
  let workspaceId: string;

  beforeAll(async () => {
    // Inline: the reconciliation's case projects batches itself (projectNow).
    server = await startTestServer({ clock, projector: 'inline' });
    workspaceId = (await seedWorkspace(server, 'vs', { sites: ['vs-a', 'vs-b', 'vs-c'] })).id;
  });

  afterAll(async () => {
    await server?.close();
  });

  it.each<[string, Event[], Event[], string, string[]]>([
    ['a visit that grows', [view('vs-a', 'grow', at('10:00'), '/grow/a')], [view('vs-a', 'grow', at('10:10'), '/grow/b')], '/grow/a', ['/grow/a', '/grow/b']],
    [
      'an event before the visit\'s start',
      [view('vs-a', 'early', at('11:00'), '/early/b')],
      [view('vs-a', 'early', at('10:50'), '/early/a')],
      '/early/a',
      ['/early/a', '/early/b'],
    ],
    [
      'a pageview that merges two visits',
      [view('vs-a', 'merge', at('12:00'), '/merge/a'), view('vs-a', 'merge', at('12:40'), '/merge/b')],
      [view('vs-a', 'merge', at('12:20'), '/merge/c')],
      '/merge/a',
      ['/merge/a', '/merge/c', '/merge/b'],
    ],
    [
      'a custom event that merges two visits',
      [view('vs-a', 'bridge', at('13:00'), '/bridge/a'), view('vs-a', 'bridge', at('13:40'), '/bridge/b')],
      [view('vs-a', 'bridge', at('13:20'), '/bridge/a', { type: 'click' })],
      '/bridge/a',
      ['/bridge/a', '/bridge/b'],
    ],
    [
      'internal traffic, a visit of its own',
      [view('vs-a', 'staff', at('14:00'), '/staff/a'), view('vs-a', 'staff', at('14:05'), '/staff/b', { internal: true })],
      [view('vs-a', 'staff', at('14:10'), '/staff/c')],
      '/staff/a',
      ['/staff/a', '/staff/c'],
    ],
  ])('%s', async (_, first, second, startPath, steps) => {
    await send(server, 'vs-a', first);
    await send(server, 'vs-a', second);
    expect(await journeysFrom(server, 'vs-a', startPath)).toEqual([{ steps, visitors: 1, visits: 1 }]);
    expectTableEqualsEvents(server.db, ['vs-a'], workspaceId);
  });

  // The visit's filter values are its first kept event's: the journeys asked with them find it, the others do not.
  it.each<[string, Event[], Event[], string, string[], Record<string, string>, Record<string, string>]>([
    [
      'an earlier event from a phone gives the visit its values',
      [view('vs-a', 'ea', at('09:10'), '/ea/b')],
      [view('vs-a', 'ea', at('09:00'), '/ea/a', fromPhone)],
      '/ea/a',
      ['/ea/a', '/ea/b'],
      { source: 'google.com', device: 'mobile', os: 'iOS' },
      { device: 'desktop' },
    ],
    [
      'a merge of two visits keeps the values of the first',
      [view('vs-a', 'ma', at('15:30'), '/ma/a', fromPhone), view('vs-a', 'ma', at('16:10'), '/ma/c')],
      [view('vs-a', 'ma', at('15:50'), '/ma/b')],
      '/ma/a',
      ['/ma/a', '/ma/b', '/ma/c'],
      { source: 'google.com', device: 'mobile' },
      { source: 'direct' },
    ],
    [
      'a visit that starts with a custom event takes its values',
      [view('vs-a', 'ca', at('17:00'), '/ca/a', { type: 'click', ...fromPhone })],
      [view('vs-a', 'ca', at('17:05'), '/ca/a'), view('vs-a', 'ca', at('17:06'), '/ca/b')],
      '/ca/a',
      ['/ca/a', '/ca/b'],
      { device: 'mobile' },
      { browser: 'Chrome' },
    ],
  ])('%s', async (_, first, second, startPath, steps, matching, other) => {
    await send(server, 'vs-a', first);
    await send(server, 'vs-a', second);
    expect(await journeysFrom(server, 'vs-a', startPath, matching)).toEqual([{ steps, visitors: 1, visits: 1 }]);
    expect(await journeysFrom(server, 'vs-a', startPath, other)).toEqual([]);
    expectTableEqualsEvents(server.db, ['vs-a'], workspaceId);
  });

  it.each<[string, Event[][], string, string[]]>([
    [
      'a new visit made in one batch, its events out of order',
      [[view('vs-a', 'one', at('10:20'), '/one/c'), view('vs-a', 'one', at('10:00'), '/one/a'), view('vs-a', 'one', at('10:10'), '/one/b')]],
      '/one/a',
      ['/one/a', '/one/b', '/one/c'],
    ],
    [
      'pageviews at the same millisecond, in ingest order',
      [[view('vs-a', 'tie', at('10:30'), '/tie/a'), view('vs-a', 'tie', at('10:30'), '/tie/c'), view('vs-a', 'tie', at('10:30'), '/tie/b')]],
      '/tie/a',
      ['/tie/a', '/tie/c', '/tie/b'],
    ],
    [
      'two visits a batch started, merged by its last event, with a custom event',
      [[view('vs-a', 'two', at('11:00'), '/two/a'), view('vs-a', 'two', at('11:50'), '/two/c'), view('vs-a', 'two', at('11:25'), '/two/a', { type: 'click' }), view('vs-a', 'two', at('11:30'), '/two/b')]],
      '/two/a',
      ['/two/a', '/two/b', '/two/c'],
    ],
    [
      'a stored visit merged with an earlier one the batch started',
      [[view('vs-a', 'join', at('12:50'), '/join/c')], [view('vs-a', 'join', at('12:10'), '/join/a'), view('vs-a', 'join', at('12:30'), '/join/b')]],
      '/join/a',
      ['/join/a', '/join/b', '/join/c'],
    ],
    [
      'a visit grown across three batches, beside a new visit of the same visitor',
      [
        [view('vs-a', 'long', at('13:00'), '/long/a')],
        [view('vs-a', 'long', at('13:20'), '/long/b'), view('vs-a', 'long', at('16:00'), '/long/x')],
        [view('vs-a', 'long', at('13:40'), '/long/c'), view('vs-a', 'long', at('16:10'), '/long/y')],
      ],
      '/long/a',
      ['/long/a', '/long/b', '/long/c'],
    ],
    [
      'bots and internal traffic in the batch of a new visit',
      [
        [
          view('vs-a', 'mix', at('14:20'), '/mix/a'),
          view('vs-a', 'mix', at('14:21'), '/mix/bot', { context: { user_agent: googlebot } }),
          view('vs-a', 'mix', at('14:22'), '/mix/staff', { internal: true }),
          view('vs-a', 'mix', at('14:23'), '/mix/b'),
        ],
      ],
      '/mix/a',
      ['/mix/a', '/mix/b'],
    ],
    [
      'a late event of an earlier day, in a batch with current ones',
      [[view('vs-a', 'late', at('17:00'), '/late/a')], [view('vs-a', 'late', '2026-03-17T17:00:00.000Z', '/late/old'), view('vs-a', 'late', at('17:10'), '/late/b')]],
      '/late/a',
      ['/late/a', '/late/b'],
    ],
  ])('%s', async (_, batches, startPath, steps) => {
    for (const batch of batches) {
      await send(server, 'vs-a', batch);
      expectTableEqualsEvents(server.db, ['vs-a'], workspaceId);
    }
    expect(await journeysFrom(server, 'vs-a', startPath)).toEqual([{ steps, visitors: 1, visits: 1 }]);
  });

  it('a stray row where a new visit starts (a table broken elsewhere) is replaced, and the projector goes on', async () => {
    await send(server, 'vs-a', [view('vs-a', 'stray', at('18:00'), '/stray/a')]);
    const vid = server.db.prepare('SELECT vid FROM report_visitors WHERE site_id = ? AND anon_id = ?').pluck().get('vs-a', 'stray') as number;
    // A row already at the new visit's key.
    server.db.prepare("INSERT INTO visit_sequences (site_id, start_ts, visitor, pages) VALUES ('vs-a', ?, ?, x'01')").run(Date.parse(at('20:00')), vid * 2);
    await send(server, 'vs-a', [view('vs-a', 'stray', at('20:00'), '/stray/b'), view('vs-a', 'stray', at('20:05'), '/stray/c')]);
    expect(await journeysFrom(server, 'vs-a', '/stray/b')).toEqual([{ steps: ['/stray/b', '/stray/c'], visitors: 1, visits: 1 }]);
    expectTableEqualsEvents(server.db, ['vs-a'], workspaceId);
  });

  it('a GDPR delete takes the visitor\'s visits out', async () => {
    await send(server, 'vs-a', [view('vs-a', 'gone', at('15:00'), '/merge/a'), view('vs-a', 'gone', at('15:01'), '/merge/b')]);
    expect(await journeysFrom(server, 'vs-a', '/merge/a')).toEqual([
      { steps: ['/merge/a', '/merge/b'], visitors: 1, visits: 1 },
      { steps: ['/merge/a', '/merge/c', '/merge/b'], visitors: 1, visits: 1 },
    ]);
    const deleted = await server.request('POST', '/sites/vs-a/gdpr/delete', { body: { anon_id: 'gone' } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await journeysFrom(server, 'vs-a', '/merge/a')).toEqual([{ steps: ['/merge/a', '/merge/c', '/merge/b'], visitors: 1, visits: 1 }]);
    expectTableEqualsEvents(server.db, ['vs-a'], workspaceId);
  });

  it('the retention purge drops the visits it deletes and cuts the one across the first kept day', async () => {
    await send(server, 'vs-b', [
      view('vs-b', 'old', '2026-03-05T10:00:00.000Z', '/old/a'),
      view('vs-b', 'old', '2026-03-05T10:01:00.000Z', '/old/b'),
      view('vs-b', 'edge', '2026-03-09T23:50:00.000Z', '/edge/old', fromPhone),
      view('vs-b', 'edge', '2026-03-10T00:05:00.000Z', '/edge/a'),
      view('vs-b', 'edge', '2026-03-10T00:10:00.000Z', '/edge/b'),
    ]);
    expect(await journeysFrom(server, 'vs-b', '/edge/old')).toEqual([{ steps: ['/edge/old', '/edge/a', '/edge/b'], visitors: 1, visits: 1 }]);
    expect(await journeysFrom(server, 'vs-b', '/edge/old', { device: 'mobile', source: 'google.com' })).toEqual([{ steps: ['/edge/old', '/edge/a', '/edge/b'], visitors: 1, visits: 1 }]);
    const set = await server.request('PATCH', '/workspaces/vs/sites/vs-b', { body: { retention_days: 10 } });
    expect(set.status, set.text).toBe(200);
    expect(await server.app.retention.runNow()).toEqual([expect.objectContaining({ events: 3 })]);
    expect(await journeysFrom(server, 'vs-b', '/edge/old')).toEqual([]);
    expect(await journeysFrom(server, 'vs-b', '/old/a')).toEqual([]);
    // As the events now give it: the visit starts on the first kept day, with its kept pages.
    expect(await journeysFrom(server, 'vs-b', '/edge/a')).toEqual([{ steps: ['/edge/a', '/edge/b'], visitors: 1, visits: 1 }]);
    // With the values of its first kept event (the stored visit keeps those of the purged one).
    expect(await journeysFrom(server, 'vs-b', '/edge/a', { device: 'desktop', source: 'direct' })).toEqual([{ steps: ['/edge/a', '/edge/b'], visitors: 1, visits: 1 }]);
    expect(await journeysFrom(server, 'vs-b', '/edge/a', { device: 'mobile' })).toEqual([]);
    expect(storedAttributes(server.db, 'vs-b')).toEqual([
      { start_ts: Date.parse('2026-03-10T00:05:00.000Z'), source: 'direct', device: 'desktop', browser: 'Chrome', os: 'Windows', country: null, city: null },
    ]);
    expectTableEqualsEvents(server.db, ['vs-b'], workspaceId);
  });

  it('a rebuild of everything derived (the reconciliation) writes the rows again, in batches of 7 events', async () => {
    const rows = () => server.db.prepare('SELECT count(*) FROM visit_sequences').pluck().get();
    const answers = async () => {
      const all = await server.request('GET', `/sites/vs-a/reports/journeys-v2?${new URLSearchParams({ ...month, steps: '6', limit: '50', scope: 'all-sites', internal: 'include' })}`);
      expect(all.status, all.text).toBe(200);
      return all.body.data;
    };
    const before = rows();
    const answered = await answers();
    expect(before).toBeGreaterThan(5);
    // What a power failure can leave: a position past the log's end.
    server.db.prepare('UPDATE projector_state SET position = position + 1000').run();
    expect(reconcileProjection(server.db, clock.now())).toBe(true);
    expect(rows()).toBe(0);
    while (server.app.projection.projectNow({ maxEvents: 7 }).events > 0);
    // Visitor numbers and path ids are given again (higher, in another order): the same visits, not the same bytes.
    expect(rows()).toBe(before);
    expect(await answers()).toEqual(answered);
    expectTableEqualsEvents(server.db, ['vs-a', 'vs-b'], workspaceId);
  });

  it('a site\'s deletion drops its rows', async () => {
    await send(server, 'vs-c', [view('vs-c', 'c1', at('10:00'), '/c/a'), view('vs-c', 'c1', at('10:01'), '/c/b')]);
    const rows = server.db.prepare('SELECT count(*) FROM visit_sequences WHERE site_id = ?').pluck();
    expect(rows.get('vs-c')).toBe(1);
    const deleted = await server.request('DELETE', '/workspaces/vs/sites/vs-c');
    expect(deleted.status, deleted.text).toBe(204);
    expect(rows.get('vs-c')).toBe(0);
  });
});

/** The SQL of the schema section that holds `text` (found by what it creates, whatever number the section gets). */
function sectionCreating(text: string): string {
  return parseSchemaSections(readFileSync(join(repositoryRoot, 'schema.sql'), 'utf8')).find((candidate) => candidate.sql.includes(text))!.sql;
}

describe('the upgrade to schema 30 fills the table from the visits already projected', () => {
  // Two servers and an upgrade backup: generous room on a shared machine (2.4 s alone).
  it('backfills, resumes after a crash halfway, and answers as before', { timeout: 180_000 }, async () => {
    const dataDir = makeTempDir();
    const before = await startTestServer({ clock, dataDir });
    const { id: workspaceId } = await seedWorkspace(before, 'up', { sites: ['up-a'] });
    const events: Event[] = [];
    for (let visitor = 0; visitor < 6; visitor++) {
      for (let page = 0; page < 3; page++) events.push(view('up-a', `u${visitor}`, at(`1${visitor}:0${page}`), `/up/${(visitor + page) % 4}`));
    }
    await send(before, 'up-a', events);
    const answer = await journeysFrom(before, 'up-a', '/up/0');
    expect(answer).not.toEqual([]);
    await before.close();

    // The database as the schema before the table left it (visits projected), then the upgrade: the section's own SQL
    // (found by what it creates, whatever number the section gets).
    const upgraded = openDatabase(databasePath(dataDir));
    upgraded.exec(`DROP TABLE visit_sequences; DROP TABLE visit_sequences_backfill; DROP TABLE visit_sequences_attributes_backfill;
      DROP TABLE visit_sequences_longest; DROP TABLE visit_sequences_events_backfill; DROP INDEX eventlog.events_by_site_type_ts;`);
    upgraded.exec(sectionCreating('CREATE TABLE visit_sequences ('));
    // And the section after it (the rows' visit filters): the table is empty, so it leaves nothing to fill.
    upgraded.exec(sectionCreating('CREATE TABLE visit_sequences_attributes_backfill ('));
    expect(upgraded.prepare('SELECT count(*) FROM visit_sequences_attributes_backfill').pluck().get()).toBe(0);
    // And the one after (the rows' events): its fill is pending, after the others.
    upgraded.exec(sectionCreating('CREATE TABLE visit_sequences_events_backfill ('));

    // A crash after two chunks of two visits: the table half filled, reads from the events.
    expect(upgraded.prepare('SELECT after_visit, last_visit FROM visit_sequences_backfill').get()).toEqual({ after_visit: 0, last_visit: 6 });
    expect(backfillVisitSequences(upgraded, { chunk: 2, maxChunks: 2 })).toBe(4);
    expect(upgraded.prepare('SELECT count(*) FROM visit_sequences').pluck().get()).toBe(4);
    const selection: Selection = { scope: { siteIds: ['up-a'], workspaceId }, range: { fromDay: dayOf(Date.parse(at('00:00'))), toDay: dayOf(Date.parse(at('00:00'))) }, filters: {}, withInternal: false };
    expect(storedSequencesAnswer(upgraded, selection)).toBe(false);
    upgraded.close();

    // The next start finishes it before the projector runs.
    const after = await startTestServer({ clock, dataDir });
    try {
      expect(after.db.prepare('SELECT count(*) FROM visit_sequences_backfill').pluck().get()).toBe(0);
      expect(after.db.prepare('SELECT count(*) FROM visit_sequences').pluck().get()).toBe(6);
      expect(await journeysFrom(after, 'up-a', '/up/0')).toEqual(answer);
      expectTableEqualsEvents(after.db, ['up-a'], workspaceId);
    } finally {
      await after.close();
    }
  });
});

describe('the upgrade to schema 31 gives the rows already stored their visit filters', () => {
  it('fills them from the stored visits (a cut visit rebuilt), resumes after a crash halfway, and answers as before', { timeout: 180_000 }, async () => {
    const dataDir = makeTempDir();
    const before = await startTestServer({ clock, dataDir });
    const { id: workspaceId } = await seedWorkspace(before, 'up31', { sites: ['up31-a'] });
    const events: Event[] = [];
    for (let visitor = 0; visitor < 6; visitor++) {
      for (let page = 0; page < 3; page++) events.push(view('up31-a', `w${visitor}`, at(`1${visitor}:0${page}`), `/up/${(visitor + page) % 4}`, visitor % 2 === 0 ? fromPhone : {}));
    }
    // A visit the retention purge cuts: its first event (from a phone) goes, the stored visit keeps its values.
    events.push(view('up31-a', 'cut', '2026-03-09T23:50:00.000Z', '/up/0', fromPhone), view('up31-a', 'cut', '2026-03-10T00:05:00.000Z', '/up/1'));
    await send(before, 'up31-a', events);
    const set = await before.request('PATCH', '/workspaces/up31/sites/up31-a', { body: { retention_days: 10 } });
    expect(set.status, set.text).toBe(200);
    expect(await before.app.retention.runNow()).toEqual([expect.objectContaining({ events: 1 })]);
    const filters: Record<string, string>[] = [{}, { device: 'mobile' }, { device: 'desktop', source: 'direct' }, { os: 'iOS' }];
    const answers = await Promise.all(filters.map((filter) => journeysFrom(before, 'up31-a', '/up/1', filter)));
    expect(answers[1]).not.toEqual([]);
    expect(answers[2]).not.toEqual([]);
    const attributes = storedAttributes(before.db, 'up31-a');
    expect(attributes.filter((row) => row.device === 'mobile')).toHaveLength(3);
    await before.close();

    // The database as schema 30 left it: the rows without their filter values. Then the section's own SQL.
    const upgraded = openDatabase(databasePath(dataDir));
    upgraded.exec(`CREATE TABLE old_rows AS SELECT site_id, start_ts, visitor, pages FROM visit_sequences;
      DROP TABLE visit_sequences; DROP TABLE visit_sequences_backfill; DROP TABLE visit_sequences_attributes_backfill;
      DROP TABLE visit_sequences_longest; DROP TABLE visit_sequences_events_backfill; DROP INDEX eventlog.events_by_site_type_ts;`);
    upgraded.exec(sectionCreating('CREATE TABLE visit_sequences ('));
    upgraded.exec('DELETE FROM visit_sequences_backfill; INSERT INTO visit_sequences SELECT * FROM old_rows; DROP TABLE old_rows;');
    upgraded.exec(sectionCreating('CREATE TABLE visit_sequences_attributes_backfill ('));
    upgraded.exec(sectionCreating('CREATE TABLE visit_sequences_events_backfill ('));
    expect(upgraded.prepare('SELECT count(*) FROM visit_sequences WHERE source_id IS NULL').pluck().get()).toBe(7);

    // A crash after two chunks of two visits: journeys with a visit filter read the events, those without the rows.
    expect(upgraded.prepare('SELECT after_visit, last_visit FROM visit_sequences_attributes_backfill').get()).toEqual({ after_visit: 0, last_visit: 7 });
    expect(backfillVisitSequences(upgraded, { chunk: 2, maxChunks: 2 })).toBe(4);
    expect(upgraded.prepare('SELECT count(*) FROM visit_sequences WHERE source_id IS NULL').pluck().get()).toBe(3);
    const selection = (filters: ReportFilters): Selection => ({ scope: { siteIds: ['up31-a'], workspaceId }, range: { fromDay: dayOf(Date.parse(at('00:00'))), toDay: dayOf(Date.parse(at('00:00'))) }, filters, withInternal: false });
    expect(storedSequencesAnswer(upgraded, selection({ device: ['mobile'] }))).toBe(false);
    expect(storedSequencesAnswer(upgraded, selection({}))).toBe(true);
    upgraded.close();

    // The next start finishes it before the projector runs: the values a recomputation gives, the same answers.
    const after = await startTestServer({ clock, dataDir });
    try {
      expect(after.db.prepare('SELECT count(*) FROM visit_sequences_attributes_backfill').pluck().get()).toBe(0);
      expect(storedAttributes(after.db, 'up31-a')).toEqual(attributes);
      for (const [index, filter] of filters.entries()) expect(await journeysFrom(after, 'up31-a', '/up/1', filter)).toEqual(answers[index]);
      expectTableEqualsEvents(after.db, ['up31-a'], workspaceId);
    } finally {
      await after.close();
    }
  });
});
