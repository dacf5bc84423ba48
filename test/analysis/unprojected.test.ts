// A population read past the projector's position (an execution's panels while the projector rebuilds): events the
// projector has not passed have no visitor number in event_visitors yet, so their anon_id is read instead and given
// the number it already has on a site of the scope, or a key of its own. The people and their attempts must be
// those the same read finds once the projector has passed everything. The projector is manual here.
import * as v from 'valibot';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FunnelQueryBody, toFunnelQuery } from '../../src/analysis/funnel-query.ts';
import { type Population, readPopulation } from '../../src/analysis/population.ts';
import { anonIdsOfVisitors } from '../../src/read-model/sqlite/funnel-population.ts';
import { createSqliteReadModel } from '../../src/read-model/sqlite/sqlite-read-model.ts';
import { readProjectorPosition } from '../../src/projector/queries/projector-state.ts';
import { findVisitorNumber } from '../../src/projector/queries/visitor-number-rows.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { at, funnelQuery, postEvents } from './_funnel-helpers.ts';

let server: TestServer;
let workspaceId: string;
const sites = ['un-a', 'un-b'];
const query = toFunnelQuery(v.parse(FunnelQueryBody, funnelQuery({ allSites: true, steps: [{ type: 'pageview' }, { type: 'signup' }, { type: 'purchase' }] })), '');

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z'), projector: 'manual' });
  workspaceId = (await seedWorkspace(server, 'unprojected', { sites })).id;
});
afterAll(() => server.close());

const lastSeq = () => server.db.prepare('SELECT max(seq) FROM events').pluck().get() as number;

/** Each person's depth and attempt, by the anon_ids of their visitor keys (person names differ between the reads). */
function attempts(population: Population): Record<string, { depth: number; steps: { ts: number; seq: number }[] }> {
  const anonIdOf = anonIdsOfVisitors(server.db, sites, population.unnumbered, population.people.flatMap((person) => person.visitors));
  return Object.fromEntries(
    population.people.map((person) => [person.visitors.map((key) => anonIdOf.get(key)).sort().join('+'), { depth: person.depth, steps: person.steps }]),
  );
}

it('reads the events past the projector by anon_id and finds the people it finds once they are projected', async () => {
  await postEvents(server, [{ site: 'un-a', anon: 'early', ts: at(0) }]);
  server.app.projection.projectNow();
  const position = readProjectorPosition(server.db);
  // Past the projector: early's next steps (on both sites), a new visitor on each site, one of them on both.
  await postEvents(server, [
    { site: 'un-a', anon: 'early', ts: at(1), type: 'signup' },
    { site: 'un-b', anon: 'early', ts: at(2), type: 'purchase' },
    { site: 'un-a', anon: 'late', ts: at(0) },
    { site: 'un-b', anon: 'late', ts: at(3), type: 'signup' },
    { site: 'un-b', anon: 'other', ts: at(0) },
    // The same ms on both sites: seq orders them (site a's request is posted first).
    { site: 'un-a', anon: 'tied', ts: at(5) },
    { site: 'un-b', anon: 'tied', ts: at(5), type: 'signup' },
  ]);
  const watermarkSeq = lastSeq();
  expect(readProjectorPosition(server.db)).toBe(position);

  // This connection's read model, without the wait for the (manual) projector: the read is past its position.
  const readModel = createSqliteReadModel({ db: server.db, waitForProjection: async () => false });
  const scope = { siteIds: sites, workspaceId };
  const behind = await readPopulation(readModel, { scope, query, asOf: watermarkSeq, withSeq: true });
  // early has a number (its first event was projected); the others have negative keys of their own.
  const earlyVid = findVisitorNumber(server.db, 'un-a', 'early')!;
  expect(behind.people.find((person) => person.visitors.includes(earlyVid))?.person).toBe(`v:${earlyVid}`);
  expect([...behind.unnumbered.values()].sort()).toEqual(['late', 'other', 'tied']);
  const expected = {
    early: { depth: 3 },
    late: { depth: 2 },
    other: { depth: 1 },
    tied: { depth: 2 },
  };
  expect(attempts(behind)).toMatchObject(expected);

  server.app.projection.projectNow();
  expect(readProjectorPosition(server.db)).toBe(watermarkSeq);
  const projected = await readPopulation(readModel, { scope, query, asOf: watermarkSeq, withSeq: true });
  expect(projected.unnumbered.size).toBe(0);
  expect(projected.people.every((person) => person.person.startsWith('v:'))).toBe(true);
  // The same people, depths, and attempt events (ts and seq) either way.
  expect(attempts(projected)).toEqual(attempts(behind));
  expect(attempts(projected)).toMatchObject(expected);
});

it('keeps event_visitors beside the visitor index: one row per indexed event, none left by a deleted site', async () => {
  const orphans = () =>
    server.db.prepare('SELECT count(*) FROM event_visitors WHERE seq NOT IN (SELECT seq FROM visitor_events)').pluck().get() as number;
  const rows = () => server.db.prepare('SELECT count(*) FROM event_visitors').pluck().get() as number;
  const indexed = () => server.db.prepare('SELECT count(*) FROM visitor_events').pluck().get() as number;
  server.app.projection.projectNow();
  expect(rows()).toBe(indexed());
  expect(rows()).toBeGreaterThan(0);
  // Every row names the visitor its event's (site, anon_id) has.
  const mismatched = server.db
    .prepare(
      `SELECT count(*) FROM event_visitors ev JOIN events e ON e.seq = ev.seq
        WHERE ev.vid IS NOT (SELECT vid FROM report_visitors WHERE site_id = e.site_id AND anon_id = e.anon_id)`,
    )
    .pluck()
    .get();
  expect(mismatched).toBe(0);
  const response = await server.request('DELETE', '/workspaces/unprojected/sites/un-b');
  expect(response.status, response.text).toBeLessThan(300);
  server.app.projection.projectNow();
  expect(orphans()).toBe(0);
  expect(rows()).toBe(indexed());
});
