// streamRawVisits (src/read-model/sqlite/raw-visits.ts): the raw fallback over a large window cuts visits as the rows
// go by in time order instead of loading them all (a month of a 10M-event site did not fit the server's heap). It must
// give exactly the visits loadRawVisits gives, over a table of windows, with visits at its edges: one running across
// the window's start (extended backward), one across its end (extended forward), gaps of exactly 30 minutes (two
// visits) and a millisecond less (one), events at the same time, and a crowd of visitors in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { chrome, iphone, poll, send } from '../events/_helpers.ts';
import { loadRawVisits, type RawVisit, streamRawVisits } from '../../src/read-model/sqlite/raw-visits.ts';

const clock = manualClock('2026-03-12T12:00:00.000Z');
const siteId = 'stream';
const minute = 60_000;
const day = 86_400_000;
let server: TestServer;

function pageview(anonId: string, ms: number, path = '/', agent = chrome): Record<string, unknown> {
  return { id: crypto.randomUUID(), site_id: siteId, anon_id: anonId, ts: new Date(ms).toISOString(), type: 'pageview', url: `https://stream.example${path}`, context: { user_agent: agent } };
}

function dataSet(): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  // Every 20 minutes from the 3rd 20:00 to the 5th 02:00: one visit across midnights and windows' starts.
  for (let at = Date.parse('2026-03-03T20:00:00Z'); at <= Date.parse('2026-03-05T02:00:00Z'); at += 20 * minute) events.push(pageview('long-early', at, `/e${(at / minute) % 3}`));
  // Every 25 minutes from the 6th 20:00 to the 8th 03:00: one visit across windows' ends.
  for (let at = Date.parse('2026-03-06T20:00:00Z'); at <= Date.parse('2026-03-08T03:00:00Z'); at += 25 * minute) events.push(pageview('long-late', at, '/late'));
  // A gap of exactly 30 minutes cuts; a millisecond less does not.
  const noon = Date.parse('2026-03-05T12:00:00Z');
  events.push(pageview('gap', noon), pageview('gap', noon + 30 * minute, '/second'), pageview('near', noon), pageview('near', noon + 30 * minute - 1, '/same'));
  // Two events at the same millisecond.
  events.push(pageview('tie', noon, '/a'), pageview('tie', noon, '/b'), pageview('tie', noon + minute, '/c'));
  // A crowd: 60 visitors, a few visits each over the 3rd to the 8th.
  let state = 5;
  const random = () => ((state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  for (let person = 0; person < 60; person++) {
    for (let visit = 0; visit < 1 + Math.floor(random() * 4); visit++) {
      const start = Date.parse('2026-03-03T00:00:00Z') + Math.floor(random() * 6 * day);
      for (let view = 0; view < 1 + Math.floor(random() * 4); view++) events.push(pageview(`p${person}`, start + view * Math.floor(random() * 40) * minute, `/p${view}`, person % 3 ? chrome : iphone));
    }
  }
  return events;
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  await seedWorkspace(server, 'stream', { sites: [siteId] });
  await send(server, siteId, dataSet());
  await poll(async () => {
    const { freshness } = (await server.request('GET', `/v1/sites/${siteId}/reports/summary-v2?from=2026-03-01&to=2026-03-10`)).body.meta;
    return freshness.watermark !== null && freshness.watermark === freshness.projected_through ? true : undefined;
  }, 120_000);
}, 180_000);
afterAll(() => server?.close());

/** The streamed identity of an anon_id: `#` and its visitor number (the projector's report_visitors). */
function identityOf(anonId: string): string {
  const vid = server.db.prepare('SELECT vid FROM report_visitors WHERE site_id = ? AND anon_id = ?').pluck().get(siteId, anonId);
  return `#${vid}`;
}

/** A visit as text: who, when, which events in order, its exit; sorted, so the two lists compare whatever their order. */
const described = (visits: readonly RawVisit[], identity: (visit: RawVisit) => string = (visit) => visit.anon_id) =>
  visits.map((visit) => `${identity(visit)}|${visit.is_internal}|${visit.start_ts}|${visit.end_ts}|${visit.events.map((event) => event.seq).join(',')}|${visit.exit?.seq ?? '-'}|${visit.entry.seq}`).sort();

describe('streamRawVisits gives the visits loadRawVisits gives', () => {
  it.each([
    ['one day in the middle', '2026-03-05', '2026-03-05'],
    ['the long early visit\'s days (it starts before the window)', '2026-03-05', '2026-03-06'],
    ['the long late visit\'s days (it ends after the window)', '2026-03-06', '2026-03-06'],
    ['every day', '2026-03-03', '2026-03-08'],
    ['days without events', '2026-02-01', '2026-02-02'],
  ])('%s: %s to %s', (_label, from, to) => {
    const fromDay = Date.parse(`${from}T00:00:00Z`) / day;
    const toDay = Date.parse(`${to}T00:00:00Z`) / day;
    for (const withInternal of [false, true]) {
      const input = { siteIds: [siteId], fromDay, toDay, withInternal, maxSeq: Number.MAX_SAFE_INTEGER };
      const loaded = loadRawVisits(server.db, input);
      const streamed: RawVisit[] = [];
      streamRawVisits(server.db, input, (visit) => streamed.push(visit));
      // The stream names a visitor by their number (or anon_id where there is none), the load by anon_id.
      expect(described(streamed)).toEqual(described(loaded, (visit) => identityOf(visit.anon_id)));
      if (loaded.length > 0) expect(streamed.every((visit) => visit.anon_id.startsWith('#'))).toBe(true);
    }
  });

  it('the edges are there to compare: the long visits run past a window, the gaps cut as the rule says', () => {
    const input = { siteIds: [siteId], fromDay: Date.parse('2026-03-05T00:00:00Z') / day, toDay: Date.parse('2026-03-06T00:00:00Z') / day, withInternal: false, maxSeq: Number.MAX_SAFE_INTEGER };
    const streamed: RawVisit[] = [];
    streamRawVisits(server.db, input, (visit) => streamed.push(visit));
    const of = (anonId: string) => streamed.filter((visit) => visit.anon_id === identityOf(anonId));
    // Starts on the 3rd, a day before the window (the 4th): found by extending backward.
    expect(of('long-early').map((visit) => new Date(visit.start_ts).toISOString())).toEqual(['2026-03-03T20:00:00.000Z']);
    // Ends on the 8th, after the window (up to the 7th): found by extending forward.
    expect(of('long-late').map((visit) => new Date(visit.end_ts).toISOString().slice(0, 10))).toEqual(['2026-03-08']);
    expect(of('gap')).toHaveLength(2);
    expect(of('near')).toHaveLength(1);
    expect(of('tie').map((visit) => visit.events.map((event) => event.path))).toEqual([['/a', '/b', '/c']]);
  });
});
