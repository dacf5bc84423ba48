// retention-v2 started on a goal (goal=<id>, docs/reports.md): a cohort is the people whose first conversion ever on
// the goal falls in the period, returning is seen again (any visit) in each later period. Figures of a hand-computed
// fixture: a person on two devices merged through user_id (one cohort member; a conversion on the other device before
// the range rules them out), a conversion in the last second of a Sunday and of a month (UTC), an event goal's props,
// a near-miss path, an event goal without props whose conversion before the range on another device rules a person
// out (read through the event log's index of the other event types: the query plan is checked); and the goal's tenancy: another site's goal, another workspace's and a missing one are one 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import type { TestResponse } from '../_http.ts';
import { manualClock } from '../admin/_helpers.ts';
import { goalEventsSql } from '../../src/read-model/sqlite/queries/retention-goal-events.ts';

const clock = manualClock('2026-04-10T12:00:00.000Z');
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
// Three ISO weeks: W1 from Monday 2 March, W2 from 9 March, W3 from 16 March.
const weeks = { from: '2026-03-02', to: '2026-03-22', period: 'week' };
const months = { from: '2026-02-01', to: '2026-03-31', period: 'month' };

let server: TestServer;
let readKey: string;
let otherReadKey: string;
const goals: Record<string, string> = {};

async function get(query: Record<string, string>, token?: string | null, siteId = 'rg-a'): Promise<TestResponse> {
  return server.request('GET', `/sites/${siteId}/reports/retention-v2?${new URLSearchParams(query).toString()}`, { token });
}

async function createGoal(siteId: string, body: Record<string, unknown>): Promise<string> {
  const response = await server.request('POST', `/v1/sites/${siteId}/goals`, { body });
  if (response.status !== 201) throw new Error(`goal: ${response.status} ${response.text}`);
  return response.body.id;
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  readKey = (await seedWorkspace(server, 'rg', { sites: ['rg-a', 'rg-b'], scopes: ['query:read'] })).key!;
  otherReadKey = (await seedWorkspace(server, 'rg-other', { sites: ['rg-x'], scopes: ['query:read'] })).key!;
  const event = (anonId: string, at: string, path: string, extra: Record<string, unknown> = {}) =>
    makeEvent('rg-a', { anon_id: anonId, ts: at, type: 'pageview', url: `https://s.example${path}`, context: { user_agent: chrome }, ...extra });
  const stored = [
    // p1: first visit W1, converts in the last second of W1's Sunday, seen again a minute later: Monday, W2.
    event('a1', '2026-03-02T09:00:00.000Z', '/'),
    event('a1', '2026-03-08T23:59:59.000Z', '/thanks'),
    event('a1', '2026-03-09T00:00:30.000Z', '/'),
    // p2 (user u2): converted on device b1 in February, again on device b2 in W2: not a cohort member of the weeks.
    event('b1', '2026-02-20T10:00:00.000Z', '/thanks', { user_id: 'u2' }),
    event('b2', '2026-03-10T10:00:00.000Z', '/thanks', { user_id: 'u2' }),
    // p3 (user u3): converts on c1 in W2, on c2 in W3 too: one member of W2, seen in W3.
    event('c1', '2026-03-11T10:00:00.000Z', '/thanks', { user_id: 'u3' }),
    event('c2', '2026-03-17T10:00:00.000Z', '/thanks', { user_id: 'u3' }),
    // p4: converts in W1, nothing in W2, a visit in W3.
    event('d1', '2026-03-03T10:00:00.000Z', '/thanks'),
    event('d1', '2026-03-20T10:00:00.000Z', '/blog'),
    // p5: /thanks/extra is not the goal's exact /thanks: never converts.
    event('e1', '2026-03-04T10:00:00.000Z', '/thanks/extra'),
    event('e1', '2026-03-12T10:00:00.000Z', '/'),
    // p6: converts in the last second of W3.
    event('f1', '2026-03-22T23:59:59.000Z', '/thanks'),
    // p7: converts in the last second of February, seen on the 1st of March.
    event('h1', '2026-02-28T23:59:59.000Z', '/thanks'),
    event('h1', '2026-03-01T00:00:01.000Z', '/'),
    // The event goal: g1 signs up on the pro plan (W1) and comes back in W2; g2 on the free plan.
    event('g1', '2026-03-05T10:00:00.000Z', '/signup', { type: 'signup', props: { plan: 'pro' } }),
    event('g1', '2026-03-13T10:00:00.000Z', '/'),
    event('g2', '2026-03-05T10:00:00.000Z', '/signup', { type: 'signup', props: { plan: 'free' } }),
    // The purchase goal: p8 (user u8) bought on k1 in February, again on k2 in W2: no member of the weeks. m1 buys in
    // W1 and is back in W3; n1 buys in W2 and again in W3.
    event('k1', '2026-02-25T10:00:00.000Z', '/checkout', { type: 'purchase', user_id: 'u8' }),
    event('k2', '2026-03-10T10:00:00.000Z', '/checkout', { type: 'purchase', user_id: 'u8' }),
    event('m1', '2026-03-03T10:00:00.000Z', '/checkout', { type: 'purchase' }),
    event('m1', '2026-03-16T10:00:00.000Z', '/'),
    event('n1', '2026-03-12T10:00:00.000Z', '/checkout', { type: 'purchase' }),
    event('n1', '2026-03-18T10:00:00.000Z', '/checkout', { type: 'purchase' }),
  ];
  const response = await server.request('POST', '/s2s/events', { token: 'rg-a', body: stored });
  if (response.status !== 202) throw new Error(`store: ${response.status} ${response.text}`);
  goals.thanks = await createGoal('rg-a', { name: 'Thanks', kind: 'pageview', path: '/thanks' });
  goals.pro = await createGoal('rg-a', { name: 'Pro signup', kind: 'event', event_type: 'signup', props: { plan: 'pro' } });
  goals.purchase = await createGoal('rg-a', { name: 'Purchase', kind: 'event', event_type: 'purchase' });
  goals.ofSiteB = await createGoal('rg-b', { name: 'B thanks', kind: 'pageview', path: '/thanks' });
  goals.ofOtherWorkspace = await createGoal('rg-x', { name: 'X thanks', kind: 'pageview', path: '/thanks' });
  // The answers are complete (a loaded machine could outlast the reports' bounded wait for the projector).
  await server.projected();
});

afterAll(async () => {
  await server?.close();
});

describe('retention-v2 on a goal', () => {
  it.each([
    [
      'weekly, a pageview goal',
      { ...weeks, goal: 'thanks' },
      // W1: p1, p4 (p1 back in W2, p4 in W3). W2: p3 (back in W3); p2 converted in February. W3: p6.
      [
        { start: '2026-03-02', size: 2, returning: [1, 1] },
        { start: '2026-03-09', size: 1, returning: [1] },
        { start: '2026-03-16', size: 1, returning: [] },
      ],
    ],
    [
      'monthly, across the month end',
      { ...months, goal: 'thanks' },
      // February: p2 (20 Feb; seen on b2 in March) and p7 (28 Feb 23:59:59; seen on 1 March). March: p1, p3, p4, p6.
      [
        { start: '2026-02-01', size: 2, returning: [2] },
        { start: '2026-03-01', size: 4, returning: [] },
      ],
    ],
    [
      'an event goal with props',
      { ...weeks, goal: 'pro' },
      [
        { start: '2026-03-02', size: 1, returning: [1, 0] },
        { start: '2026-03-09', size: 0, returning: [0] },
        { start: '2026-03-16', size: 0, returning: [] },
      ],
    ],
    [
      'weekly, an event goal without props (a conversion before the range on another device)',
      { ...weeks, goal: 'purchase' },
      [
        { start: '2026-03-02', size: 1, returning: [0, 1] },
        { start: '2026-03-09', size: 1, returning: [1] },
        { start: '2026-03-16', size: 0, returning: [] },
      ],
    ],
    [
      'monthly, an event goal without props',
      { ...months, goal: 'purchase' },
      // February: p8 (k1; seen on k2 in March). March: m1, n1.
      [
        { start: '2026-02-01', size: 1, returning: [1] },
        { start: '2026-03-01', size: 2, returning: [] },
      ],
    ],
  ])('%s', async (_, query, cohorts) => {
    const response = await get({ ...query, goal: goals[query.goal]! }, readKey);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({ cohorts });
    expect(response.body.meta.filters.goal).toBe(goals[query.goal]);
    expect(response.body.meta.measures.size).toMatch(/first conversion/);
  });

  it('without a goal counts by first visit (the same events)', async () => {
    const response = await get(weeks, readKey);
    // W1: a1, d1, e1, g1, g2, m1 (h1 was first seen in February). W2: b2 is u2 and k2 u8, seen in February; c1, n1.
    // W3: f1.
    expect(response.body.data.cohorts).toEqual([
      { start: '2026-03-02', size: 6, returning: [3, 2] },
      { start: '2026-03-09', size: 2, returning: [2] },
      { start: '2026-03-16', size: 1, returning: [] },
    ]);
  });

  it('reads an event goal\'s candidates through the index of the other event types, never a scan of the range', () => {
    const params = { site_id: 'rg-a', type: 'purchase', exact_path: null, path_prefix: null, max_seq: 1, with_internal: 0, with_props: 0, start_ms: 0, end_ms: 1, vids: '[]', before_ms: 1 };
    const plan = (sql: string) => server.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params).map((row: any) => row.detail as string);
    const { inSpan, before } = goalEventsSql(server.db, 'purchase');
    for (const sql of [inSpan, before]) {
      const steps = plan(sql);
      expect(steps.some((step) => /^SEARCH e USING INDEX events_by_site_type_ts \(site_id=\? AND type=\? AND ts[<>]/.test(step)), steps.join(' | ')).toBe(true);
      expect(steps.some((step) => /events_by_site_ts|SCAN e\b/.test(step)), steps.join(' | ')).toBe(false);
    }
  });

  it('applies the goal on every site with scope=all-sites (rg-b has no events)', async () => {
    const response = await get({ ...weeks, goal: goals.thanks!, scope: 'all-sites' }, readKey);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.cohorts.map((cohort: { size: number }) => cohort.size)).toEqual([2, 1, 1]);
  });

  it.each([
    ['a goal of another site of the workspace', () => goals.ofSiteB!],
    ['a goal of another workspace', () => goals.ofOtherWorkspace!],
    ['an id that is no goal', () => 'no-such-goal'],
    ['an id longer than any goal id', () => 'g'.repeat(65)],
  ])('answers 404 for %s, the same body each time', async (_, goal) => {
    const response = await get({ ...weeks, goal: goal() }, readKey);
    expect(response.status, response.text).toBe(404);
    expect(response.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    expect(response.body).toEqual((await get({ ...weeks, goal: 'no-such-goal' }, readKey)).body);
  });

  it('keeps the site\'s own 404 first: another workspace\'s reader of this site learns nothing about its goals', async () => {
    const response = await get({ ...weeks, goal: goals.thanks! }, otherReadKey);
    expect(response.status).toBe(404);
    expect(response.body).toEqual((await get(weeks, otherReadKey, 'no-such-site')).body);
  });
});
