// A projector batch updates each visitor-set container once with its additions and its leavers
// (src/projector/rollup/shard-changes.ts). When a visitor joins a set and another leaves it in the same batch, the
// set's size does not change but its members do: the container must still be written. These scenarios project
// batches where a visit's source changes (a late event becomes its first) beside newcomers to the same source, and
// read the source's visitors over two days, where the report unions the day sets instead of adding their counters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { send, wireEvent } from '../events/_helpers.ts';

const clock = manualClock('2026-05-20T12:00:00.000Z');
const start = Date.parse('2026-05-10T08:00:00.000Z');
const minute = 60_000;
const day = 1440 * minute;
const google = 'https://www.google.com/search';
const news = 'https://news.example/x';

interface Scenario {
  name: string;
  /** Batches in order, each sent then projected together: [anon_id, ms after `start`, referrer]. */
  batches: [string, number, string | null][][];
  /** google.com's visitors on the first day, on the second, and over both. */
  visitors: [number, number, number];
}

const scenarios: Scenario[] = [
  {
    name: 'one visitor leaving and another joining the same set in one batch',
    batches: [
      [['a', 0, google], ['b', day, google]],
      // a's late event becomes its visit's first: the visit now comes from news.example; b joins the first day.
      [['a', -10 * minute, news], ['b', 60 * minute, google]],
    ],
    visitors: [1, 1, 1],
  },
  {
    name: 'two leaving and one joining',
    batches: [
      [['a', 0, google], ['c', 0, google], ['b', day, google]],
      [['a', -10 * minute, news], ['c', -10 * minute, null], ['b', 60 * minute, google]],
    ],
    visitors: [1, 1, 1],
  },
  {
    name: 'one leaving alone',
    batches: [[['a', 0, google], ['b', day, google]], [['a', -10 * minute, news]]],
    visitors: [0, 1, 1],
  },
  {
    name: 'one joining alone',
    batches: [[['a', 0, google], ['b', day, google]], [['b', 60 * minute, google]]],
    visitors: [2, 1, 2],
  },
];

describe('visitor sets whose members change in one batch', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock, projector: 'manual', projectionWaitMs: 50 });
  });
  afterAll(() => server.close());

  it.each(scenarios.map((scenario, index) => ({ ...scenario, site: `vs${index}` })))('$name', async ({ site, batches, visitors }) => {
    await seedWorkspace(server, `ws-${site}`, { sites: [site] });
    server.app.projection.projectNow();
    for (const batch of batches) {
      await send(
        server,
        site,
        batch.map(([anon, at, referrer]) =>
          wireEvent(site, { anon_id: anon, ts: new Date(start + at).toISOString(), url: 'https://s.example/', ...(referrer ? { referrer } : {}) }),
        ),
      );
      expect(server.app.projection.projectNow({ maxEvents: batch.length })).toMatchObject({ events: batch.length });
    }
    const date = (at: number) => new Date(start + at).toISOString().slice(0, 10);
    const read = async (from: string, to: string) => {
      const answer = await server.request('GET', `/v1/sites/${site}/reports/summary-v2?from=${from}&to=${to}&source=google.com`);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.data.visitors;
    };
    expect([await read(date(0), date(0)), await read(date(day), date(day)), await read(date(0), date(day))]).toEqual(visitors);
  });
});
