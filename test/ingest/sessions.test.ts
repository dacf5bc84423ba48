// Visits stay equal to a from-scratch computation over the raw events, whatever order events arrive in.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';

const minute = 60_000;
const gap = 30 * minute;

interface NaiveVisit {
  anon_id: string;
  is_internal: number;
  start_ts: number;
  end_ts: number;
  events: number;
  pageviews: number;
  entry_path: string | null;
  source: string;
  exit_path: string | null;
}

/** Visits computed from scratch: sort each visitor's events by (ts, seq), cut where the gap is 30 minutes or more. */
function naiveVisits(server: TestServer, siteId: string): NaiveVisit[] {
  const events = server.db
    .prepare('SELECT seq, anon_id, is_internal, ts, type, path, source FROM events WHERE site_id = ? AND is_bot = 0 ORDER BY anon_id, is_internal, ts, seq')
    .all(siteId) as { seq: number; anon_id: string; is_internal: number; ts: number; type: string; path: string | null; source: string }[];
  const visits: NaiveVisit[] = [];
  let current: NaiveVisit | undefined;
  let previous: (typeof events)[number] | undefined;
  for (const event of events) {
    const sameVisitor = previous && previous.anon_id === event.anon_id && previous.is_internal === event.is_internal;
    if (!current || !sameVisitor || event.ts - previous!.ts >= gap) {
      current = { anon_id: event.anon_id, is_internal: event.is_internal, start_ts: event.ts, end_ts: event.ts, events: 0, pageviews: 0, entry_path: event.path, source: event.source, exit_path: null };
      visits.push(current);
    }
    current.end_ts = event.ts;
    current.events++;
    if (event.type === 'pageview') {
      current.pageviews++;
      current.exit_path = event.path;
    }
    previous = event;
  }
  return visits.sort(compareVisits);
}

/** The projector's visits, once it has passed every committed event. */
async function storedVisits(server: TestServer, siteId: string): Promise<NaiveVisit[]> {
  await server.projected();
  return (server.db
    .prepare('SELECT anon_id, is_internal, start_ts, end_ts, events, pageviews, entry_path, source, exit_path FROM sessions WHERE site_id = ?')
    .all(siteId) as NaiveVisit[]).sort(compareVisits);
}

function compareVisits(a: NaiveVisit, b: NaiveVisit): number {
  return a.anon_id.localeCompare(b.anon_id) || a.is_internal - b.is_internal || a.start_ts - b.start_ts;
}

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer();
  key = (await seedWorkspace(server, 'visits', { sites: ['v1', 'v2', 'v3'], scopes: ['ingest:write'] })).key!;
});
afterAll(() => server.close());

async function send(siteId: string, events: Record<string, unknown>[]): Promise<void> {
  const response = await server.request('POST', '/s2s/events', { token: key, body: events });
  expect(response.status, JSON.stringify(response.body)).toBe(202);
}

describe('visits', () => {
  const base = Date.now() - 3 * 86_400_000;
  const at = (minutes: number) => new Date(base + minutes * minute).toISOString();

  it('a late event bridging two visits merges them; a gap of exactly 30 minutes splits', async () => {
    await send('v1', [
      makeEvent('v1', { anon_id: 'a', ts: at(0), url: 'https://s.example/first?utm_source=mail' }),
      makeEvent('v1', { anon_id: 'a', ts: at(50), url: 'https://s.example/second' }),
    ]);
    expect((await storedVisits(server, 'v1'))).toHaveLength(2);
    await send('v1', [makeEvent('v1', { anon_id: 'a', ts: at(25), url: 'https://s.example/middle' })]);
    const merged = (await storedVisits(server, 'v1'));
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ start_ts: base, end_ts: base + 50 * minute, events: 3, pageviews: 3, entry_path: '/first', source: 'mail', exit_path: '/second' });
    await send('v1', [makeEvent('v1', { anon_id: 'b', ts: at(0) }), makeEvent('v1', { anon_id: 'b', ts: at(30) })]);
    expect((await storedVisits(server, 'v1')).filter((visit) => visit.anon_id === 'b')).toHaveLength(2);
    // An earlier event becomes the entry: source and entry path follow the first event.
    await send('v1', [makeEvent('v1', { anon_id: 'a', ts: at(-10), url: 'https://s.example/earliest', referrer: 'https://news.example/' })]);
    expect((await storedVisits(server, 'v1')).find((visit) => visit.anon_id === 'a')).toMatchObject({ entry_path: '/earliest', source: 'news.example', events: 4 });
    expect((await storedVisits(server, 'v1'))).toEqual(naiveVisits(server, 'v1'));
  });

  it('equal a from-scratch computation for random streams arriving in random order', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            anon: fc.constantFrom('p', 'q', 'r'),
            minutes: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constantFrom(0, 30, 60, 90, 29, 31)),
            pageview: fc.boolean(),
            path: fc.constantFrom('/a', '/b', '/c'),
            internal: fc.boolean(),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.integer({ min: 1, max: 7 }),
        async (items, batchSize) => {
          run++;
          const siteAnon = (anon: string) => `${anon}-${run}`;
          const events = items.map((item) =>
            makeEvent('v2', {
              anon_id: siteAnon(item.anon),
              ts: at(item.minutes),
              type: item.pageview ? 'pageview' : 'click',
              url: `https://s.example${item.path}`,
              internal: item.internal,
            }),
          );
          // Repeats of an id arrive too (retries): they must not count twice.
          if (events.length > 2) events.push({ ...events[1]! });
          for (let start = 0; start < events.length; start += batchSize) await send('v2', events.slice(start, start + batchSize));
          expect((await storedVisits(server, 'v2'))).toEqual(naiveVisits(server, 'v2'));
        },
      ),
      { numRuns: 60 },
    );
  });
});
