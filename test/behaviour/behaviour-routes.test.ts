// journeys-v2, page-flow-v2 and retention-v2 over real HTTP: the figures of a small hand-computed fixture, every
// parameter at its edges (the last accepted value and the first refused one), one anchor at most, the period, the
// range limit, and access (a foreign site is a 404 like a missing one). Refusals are the structured envelope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import type { TestResponse } from '../_http.ts';
import { manualClock } from '../admin/_helpers.ts';

const clock = manualClock('2026-03-20T12:00:00.000Z');
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const week = { from: '2026-03-02', to: '2026-03-08' };

let server: TestServer;
let readKey: string;
let otherReadKey: string;

async function get(report: string, query: Record<string, string>, token?: string | null, siteId = 'beh-a'): Promise<TestResponse> {
  return server.request('GET', `/sites/${siteId}/reports/${report}?${new URLSearchParams(query).toString()}`, { token });
}

function expectRefusal(response: TestResponse, code: string, path: string): void {
  expect(response.status, response.text).toBe(400);
  expect(response.body).toEqual({ error: { code, message: expect.any(String), details: [{ path, message: expect.any(String) }] } });
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  readKey = (await seedWorkspace(server, 'beh', { sites: ['beh-a', 'beh-b'], scopes: ['query:read'] })).key!;
  otherReadKey = (await seedWorkspace(server, 'beh-other', { sites: ['beh-x'], scopes: ['query:read'] })).key!;
  const view = (siteId: string, anonId: string, at: string, path: string, extra: Record<string, unknown> = {}) =>
    makeEvent(siteId, { anon_id: anonId, ts: at, type: 'pageview', url: `https://s.example${path}`, context: { user_agent: chrome }, ...extra });
  const stored = {
    'beh-a': [
      view('beh-a', 'v1', '2026-03-02T10:00:00.000Z', '/'),
      view('beh-a', 'v1', '2026-03-02T10:01:00.000Z', '/pricing'),
      view('beh-a', 'v1', '2026-03-02T10:02:00.000Z', '/signup'),
      view('beh-a', 'v2', '2026-03-03T10:00:00.000Z', '/'),
      view('beh-a', 'v2', '2026-03-03T10:01:00.000Z', '/pricing'),
      view('beh-a', 'v2', '2026-03-10T10:00:00.000Z', '/'),
      view('beh-a', 'v3', '2026-03-04T10:00:00.000Z', '/blog'),
    ],
    'beh-b': [view('beh-b', 'w1', '2026-03-05T10:00:00.000Z', '/'), view('beh-b', 'w1', '2026-03-05T10:01:00.000Z', '/docs')],
  };
  for (const [siteId, events] of Object.entries(stored)) {
    const response = await server.request('POST', '/s2s/events', { token: siteId, body: events });
    if (response.status !== 202) throw new Error(`store: ${response.status} ${response.text}`);
  }
});

afterAll(async () => {
  await server?.close();
});

describe('journeys-v2', () => {
  it('answers the visits\' journeys in the V2 envelope, most visits first', async () => {
    const response = await get('journeys-v2', { ...week, steps: '2' }, readKey);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({
      paths: [
        { steps: ['/', '/pricing'], visitors: 2, visits: 2 },
        { steps: ['/blog'], visitors: 1, visits: 1 },
      ],
    });
    expect(response.body.meta).toMatchObject({ scope: { site_id: 'beh-a' }, range: week, limit: 10, truncated: false, completeness: { complete: true } });
  });

  it.each([
    // A tie: the shorter path, a prefix of the other, first.
    ['start_path', { start_path: '/pricing' }, [{ steps: ['/pricing'], visitors: 1, visits: 1 }, { steps: ['/pricing', '/signup'], visitors: 1, visits: 1 }]],
    ['end_path', { end_path: '/pricing' }, [{ steps: ['/', '/pricing'], visitors: 2, visits: 2 }]],
    ['scope=all-sites', { scope: 'all-sites' }, [{ steps: ['/', '/pricing'], visitors: 2, visits: 2 }, { steps: ['/', '/docs'], visitors: 1, visits: 1 }, { steps: ['/blog'], visitors: 1, visits: 1 }]],
    ['path filter', { path: '/blog' }, [{ steps: ['/blog'], visitors: 1, visits: 1 }]],
  ])('takes %s', async (_, extra, paths) => {
    const response = await get('journeys-v2', { ...week, steps: '2', ...extra }, readKey);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.paths).toEqual(paths);
  });

  it('says when the limit left journeys out', async () => {
    const response = await get('journeys-v2', { ...week, steps: '2', limit: '1' }, readKey);
    expect(response.body.data.paths).toHaveLength(1);
    expect(response.body.meta).toMatchObject({ truncated: true, limit: 1 });
  });

  it.each([
    ['steps', '2', 200],
    ['steps', '6', 200],
    ['steps', '1', 400],
    ['steps', '7', 400],
    ['steps', 'three', 400],
    ['limit', '1', 200],
    ['limit', '50', 200],
    ['limit', '0', 400],
    ['limit', '51', 400],
    ['start_path', '', 400],
    ['start_path', `/${'a'.repeat(511)}`, 200],
    ['start_path', `/${'a'.repeat(512)}`, 400],
  ])('%s=%s → %i', async (name, value, status) => {
    const response = await get('journeys-v2', { ...week, [name]: value }, readKey);
    if (status === 200) expect(response.status, response.text).toBe(200);
    else expectRefusal(response, 'invalid_param', `/${name}`);
  });

  it('refuses start_path with end_path: a journey has one anchor', async () => {
    expectRefusal(await get('journeys-v2', { ...week, start_path: '/', end_path: '/pricing' }, readKey), 'invalid_param', '/end_path');
  });
});

describe('page-flow-v2', () => {
  it('answers the pages before and after a page and its exits', async () => {
    const response = await get('page-flow-v2', { ...week, path: '/pricing' }, readKey);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({ previous: [{ path: '/', visits: 2 }], next: [{ path: '/signup', visits: 1 }], exits: 1 });
  });

  it.each([
    [{ limit: '1' }, 200],
    [{ limit: '50' }, 200],
    [{ limit: '0' }, 400],
    [{ limit: '51' }, 400],
  ])('limit %j → %i', async (extra, status) => {
    const response = await get('page-flow-v2', { ...week, path: '/', ...extra }, readKey);
    if (status === 200) expect(response.status, response.text).toBe(200);
    else expectRefusal(response, 'invalid_param', '/limit');
  });

  it('requires the path', async () => {
    expectRefusal(await get('page-flow-v2', week, readKey), 'invalid_param', '/path');
  });
});

describe('retention-v2', () => {
  it('answers weekly cohorts with the start of each ISO week', async () => {
    const response = await get('retention-v2', { from: '2026-03-02', to: '2026-03-15', period: 'week' }, readKey);
    expect(response.status, response.text).toBe(200);
    // v2 came back on 10 March.
    expect(response.body.data).toEqual({ cohorts: [{ start: '2026-03-02', size: 3, returning: [1] }, { start: '2026-03-09', size: 0, returning: [] }] });
    expect(response.body.meta.limit).toBeNull();
  });

  it('answers monthly cohorts, across the sites with scope=all-sites', async () => {
    const response = await get('retention-v2', { from: '2026-02-01', to: '2026-03-20', period: 'month', scope: 'all-sites' }, readKey);
    expect(response.body.data).toEqual({ cohorts: [{ start: '2026-02-01', size: 0, returning: [0] }, { start: '2026-03-01', size: 4, returning: [] }] });
  });

  it.each([
    ['a missing period', { from: '2026-03-01', to: '2026-03-20' }, 'invalid_param', '/period'],
    ['an unknown period', { from: '2026-03-01', to: '2026-03-20', period: 'day' }, 'invalid_param', '/period'],
    ['from after to', { from: '2026-03-20', to: '2026-03-01', period: 'week' }, 'invalid_date_range', '/from'],
    ['368 days', { from: '2025-03-18', to: '2026-03-20', period: 'month' }, 'range_too_large', '/to'],
    ['a visit filter', { from: '2026-03-01', to: '2026-03-20', period: 'week', country: 'FR' }, 'invalid_param', '/country'],
  ])('refuses %s', async (_, query, code, path) => {
    expectRefusal(await get('retention-v2', query, readKey), code, path);
  });

  it('takes 367 days, the longest range', async () => {
    const response = await get('retention-v2', { from: '2025-03-19', to: '2026-03-20', period: 'month' }, readKey);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.cohorts).toHaveLength(13);
  });
});

describe('access', () => {
  it.each(['journeys-v2', 'page-flow-v2', 'retention-v2'])('%s: a site of another workspace is a 404, like a missing one; no credential is a 401', async (report) => {
    const query = { ...week, path: '/', period: 'week' };
    const foreign = await get(report, query, otherReadKey);
    const missing = await get(report, query, readKey, 'no-such-site');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect((await get(report, query, null)).status).toBe(401);
  });
});

describe('page-flow-v2 path', () => {
  it('is the page, never a filter list: a comma stays in it', async () => {
    const response = await get('page-flow-v2', { ...week, path: '/pricing,/' }, readKey);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({ previous: [], next: [], exits: 0 });
    expect(response.body.meta.filters.path).toBeUndefined();
  });
});
