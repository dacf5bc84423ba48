// The identity bindings of the visitor numbers a funnel read: looked up number by number when the site has more
// bindings than numbers were read, or all of the site's read at once otherwise. Both ways give the same rows, and
// never a binding of another site or workspace.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listBindingsOfVisitors } from '../../src/read-model/sqlite/queries/identities-as-of.ts';
import { findVisitorNumber } from '../../src/projector/queries/visitor-number-rows.ts';
import { seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { at, postEvents } from './_funnel-helpers.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') });
  await seedWorkspace(server, 'vb-one', { sites: ['vb-a', 'vb-b'] });
  await seedWorkspace(server, 'vb-two', { sites: ['vb-x'] });
  await postEvents(server, [
    ...['d1', 'd2', 'd3', 'd4'].map((anon, index) => ({ site: 'vb-a', anon, ts: at(index), user: index < 2 ? 'alice' : `user-${index}` })),
    { site: 'vb-a', anon: 'anonymous', ts: at(5) },
    // The same anon_id bound on another site of the workspace, and in another workspace.
    { site: 'vb-b', anon: 'd1', ts: at(6), user: 'bob' },
    { site: 'vb-x', anon: 'd1', ts: at(7), user: 'mallory' },
  ]);
  await server.projected();
});
afterAll(() => server.close());

const vid = (site: string, anon: string) => findVisitorNumber(server.db, site, anon)!;
const sorted = (rows: { vid: number; anon_id: string; user_id: string }[]) =>
  [...rows].sort((a, b) => a.vid - b.vid || a.user_id.localeCompare(b.user_id));

it('finds the same bindings one number at a time and all at once', () => {
  const one = [vid('vb-a', 'd1')];
  // vb-a has 4 bindings: one number is looked up by itself.
  expect(sorted(listBindingsOfVisitors(server.db, 'vb-a', one))).toEqual([{ vid: one[0], anon_id: 'd1', user_id: 'alice' }]);
  // With as many numbers as bindings, the site's are read at once and filtered to the numbers.
  const all = ['d1', 'd2', 'd3', 'd4', 'anonymous'].map((anon) => vid('vb-a', anon));
  const expected = [
    { vid: all[0], anon_id: 'd1', user_id: 'alice' },
    { vid: all[1], anon_id: 'd2', user_id: 'alice' },
    { vid: all[2], anon_id: 'd3', user_id: 'user-2' },
    { vid: all[3], anon_id: 'd4', user_id: 'user-3' },
  ];
  expect(sorted(listBindingsOfVisitors(server.db, 'vb-a', all))).toEqual(expected);
  expect(sorted(listBindingsOfVisitors(server.db, 'vb-a', all.slice(0, 3)))).toEqual(expected.slice(0, 3));
  expect(listBindingsOfVisitors(server.db, 'vb-a', [])).toEqual([]);
});

it('keeps to the site asked: the number is shared within the workspace, the binding is per site', () => {
  const d1 = vid('vb-a', 'd1');
  expect(vid('vb-b', 'd1')).toBe(d1);
  expect(listBindingsOfVisitors(server.db, 'vb-b', [d1])).toEqual([{ vid: d1, anon_id: 'd1', user_id: 'bob' }]);
  // Another workspace numbers its visitors on its own: the same number there is somebody else, never read here.
  const foreign = vid('vb-x', 'd1');
  expect(listBindingsOfVisitors(server.db, 'vb-x', [foreign])).toEqual([{ vid: foreign, anon_id: 'd1', user_id: 'mallory' }]);
  expect(listBindingsOfVisitors(server.db, 'vb-a', [foreign]).every((row) => row.user_id !== 'mallory')).toBe(true);
});
