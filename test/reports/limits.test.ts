// Edges of the report endpoints over real HTTP: the 367-day range, 20-value filter lists, limit 1-200, timezone,
// bots, dates, signed pages-v2 cursors, scope=all-sites, internal traffic, the legacy shapes, and access. Every
// refusal is the structured envelope with the code the spec or CONTRACT section 8 names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import type { TestResponse } from '../_http.ts';
import { manualClock, prefixes } from '../admin/_helpers.ts';

const clock = manualClock('2026-03-20T12:00:00.000Z');
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

const v2Reports = ['summary-v2', 'pages-v2', 'sources-v2', 'campaigns-v2', 'dashboard-v2'] as const;
const limitedReports = ['pages-v2', 'sources-v2', 'campaigns-v2'] as const;
/** Reports served under /v1 only (their limit edges: dashboard-batch.test.ts). */
const versionedOnly = ['dashboard-v2'];
const listFilters = ['device', 'browser', 'os', 'country', 'region', 'city', 'path'] as const;
const legacyReports = ['pageviews', 'events', 'sessions'] as const;
const march = { from: '2026-03-01', to: '2026-03-20' };

let server: TestServer;
let readKey: string;
let ingestOnlyKey: string;
let otherReadKey: string;

function reportPath(siteId: string, report: string, query: Record<string, string>): string {
  const path = (legacyReports as readonly string[]).includes(report) ? `/sites/${siteId}/${report}` : `${versionedOnly.includes(report) ? '/v1' : ''}/sites/${siteId}/reports/${report}`;
  return `${path}?${new URLSearchParams(query).toString()}`;
}

async function get(siteId: string, report: string, query: Record<string, string>, token?: string | null): Promise<TestResponse> {
  return server.request('GET', reportPath(siteId, report, query), { token });
}

async function getOk(siteId: string, report: string, query: Record<string, string>): Promise<any> {
  const response = await get(siteId, report, query);
  expect(response.status, `${report} ${JSON.stringify(query)}: ${response.text}`).toBe(200);
  return response.body;
}

/** The structured envelope, exactly: { error: { code, message, details: [{ path, message }] } }. */
function expectRefusal(response: TestResponse, code: string, path: string): void {
  expect(response.status, response.text).toBe(400);
  expect(response.body).toEqual({ error: { code, message: expect.any(String), details: [{ path, message: expect.any(String) }] } });
}

/** YYYY-MM-DD `days` before 2026-03-20. */
function daysBefore(days: number): string {
  return new Date(Date.UTC(2026, 2, 20) - days * 86_400_000).toISOString().slice(0, 10);
}

function values(count: number, prefix = 'v'): string {
  return Array.from({ length: count }, (_, index) => `${prefix}${index}`).join(',');
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  const workspace = await seedWorkspace(server, 'lim', { sites: ['lim-a', 'lim-b'], scopes: ['query:read'] });
  readKey = workspace.key!;
  const ingestOnly = await server.request('POST', '/workspaces/lim/keys', { body: { label: 'ingest', scopes: ['ingest:write'] } });
  ingestOnlyKey = ingestOnly.body.plaintext;
  otherReadKey = (await seedWorkspace(server, 'lim-other', { sites: ['lim-x'], scopes: ['query:read', 'admin'] })).key!;

  const event = (siteId: string, anonId: string, time: string, overrides: Record<string, unknown> = {}) =>
    makeEvent(siteId, { anon_id: anonId, ts: `2026-03-10T${time}:00.000Z`, context: { user_agent: chrome }, ...overrides });
  const events = [
    // Visit 1: 7 minutes, four events.
    event('lim-a', 'v1', '10:00', { url: 'https://s.example/' }),
    event('lim-a', 'v1', '10:05', { url: 'https://s.example/a', referrer: 'https://www.google.com/search' }),
    event('lim-a', 'v1', '10:06', { type: 'signup', url: null }),
    event('lim-a', 'v1', '10:07', { type: 'click', url: null }),
    // Visit 2: 3 minutes, four events, a campaign and a purchase.
    event('lim-a', 'v2', '11:00', { url: 'https://s.example/b?utm_source=news&utm_medium=email&utm_campaign=spring' }),
    event('lim-a', 'v2', '11:01', { type: 'click', url: null }),
    event('lim-a', 'v2', '11:02', { type: 'signup', url: null }),
    event('lim-a', 'v2', '11:03', { type: 'purchase', url: null, revenue: { amount: '12.50', currency: 'EUR' } }),
    // Internal traffic and a bot: left out unless internal=include; bots always.
    event('lim-a', 'v3', '12:00', { url: 'https://s.example/internal', internal: true }),
    event('lim-a', 'bot', '12:30', { url: 'https://s.example/crawled', context: { user_agent: googlebot } }),
    event('lim-b', 'w1', '13:00', { url: 'https://s.example/other-site' }),
  ];
  for (const siteId of ['lim-a', 'lim-b']) {
    const response = await server.request('POST', '/s2s/events', { token: siteId, body: events.filter((item) => item.site_id === siteId) });
    expect(response.status, response.text).toBe(202);
  }
});
afterAll(() => server.close());

describe('date range', () => {
  it.each(v2Reports)('%s accepts 367 inclusive days and refuses 368 with range_too_large', async (report) => {
    const accepted = await getOk('lim-a', report, { from: daysBefore(366), to: '2026-03-20' });
    expect(accepted.meta.range).toEqual({ from: daysBefore(366), to: '2026-03-20' });
    if (report === 'summary-v2') expect(accepted.data.series).toHaveLength(367);
    expectRefusal(await get('lim-a', report, { from: daysBefore(367), to: '2026-03-20' }), 'range_too_large', '/to');
  });

  it.each(v2Reports)('%s: one day (from = to) is a range', async (report) => {
    await getOk('lim-a', report, { from: '2026-03-10', to: '2026-03-10' });
  });

  const badDates: [string, Record<string, string>, string][] = [
    ['from missing', { to: '2026-03-20' }, '/from'],
    ['to missing', { from: '2026-03-01' }, '/to'],
    ['both missing', {}, '/from'],
    ['from empty', { from: '', to: '2026-03-20' }, '/from'],
    ['from without padding', { from: '2026-3-1', to: '2026-03-20' }, '/from'],
    ['from a day the month lacks', { from: '2026-02-30', to: '2026-03-20' }, '/from'],
    ['to month 13', { from: '2026-03-01', to: '2026-13-01' }, '/to'],
    ['to with slashes', { from: '2026-03-01', to: '2026/03/20' }, '/to'],
    ['to a timestamp', { from: '2026-03-01', to: '2026-03-20T00:00:00Z' }, '/to'],
    ['to a word', { from: '2026-03-01', to: 'today' }, '/to'],
  ];
  for (const report of [...v2Reports, ...legacyReports]) {
    it.each(badDates)(`${report}: %s → invalid_date_param`, async (_name, query, path) => {
      expectRefusal(await get('lim-a', report, query), 'invalid_date_param', path);
    });
    it(`${report}: from after to → invalid_date_range`, async () => {
      expectRefusal(await get('lim-a', report, { from: '2026-03-11', to: '2026-03-10' }), 'invalid_date_range', '/from');
    });
  }
});

describe('filter lists', () => {
  for (const report of v2Reports) {
    it.each(listFilters)(`${report}: %s takes 20 values and refuses 21 with too_many_values`, async (name) => {
      const accepted = await getOk('lim-a', report, { ...march, [name]: values(20) });
      expect(accepted.meta.filters[name]).toHaveLength(20);
      expectRefusal(await get('lim-a', report, { ...march, [name]: values(21) }), 'too_many_values', `/${name}`);
      // Repeats count too: the limit is on what was sent.
      expectRefusal(await get('lim-a', report, { ...march, [name]: Array(21).fill('same').join(',') }), 'too_many_values', `/${name}`);
    });
  }

  it.each(['a,,b', ',', 'x'.repeat(513)])('refuses an empty or oversized value (%#) with invalid_param', async (list) => {
    expectRefusal(await get('lim-a', 'summary-v2', { ...march, path: list }), 'invalid_param', '/path');
  });
});

describe('limit', () => {
  for (const report of limitedReports) {
    it.each(['1', '200'])(`${report} accepts limit=%s`, async (limit) => {
      const body = await getOk('lim-a', report, { ...march, limit });
      expect(body.meta.limit).toBe(Number(limit));
      expect(body.data.rows.length).toBeLessThanOrEqual(Number(limit));
    });
    it.each(['0', '201', '-1', '1.5', 'ten', ''])(`${report} refuses limit=%j with invalid_param`, async (limit) => {
      expectRefusal(await get('lim-a', report, { ...march, limit }), 'invalid_param', '/limit');
    });
    it(`${report}: limit=1 shows one row and says it truncated`, async () => {
      const body = await getOk('lim-a', report, { ...march, limit: '1', internal: 'include' });
      expect(body.data.rows).toHaveLength(1);
      expect(body.meta.truncated).toBe(report !== 'campaigns-v2');
    });
  }
});

describe('timezone and bots', () => {
  it.each(v2Reports)('%s accepts timezone=UTC and bots=exclude', async (report) => {
    const body = await getOk('lim-a', report, { ...march, timezone: 'UTC', bots: 'exclude' });
    expect(body.meta.timezone).toBe('UTC');
    expect(body.meta.filters.bots).toBe('exclude');
  });

  for (const report of v2Reports) {
    it.each(['Europe/Paris', 'utc', 'Etc/UTC', 'UTC+0', ''])(`${report} refuses timezone=%j with unsupported_timezone`, async (timezone) => {
      expectRefusal(await get('lim-a', report, { ...march, timezone }), 'unsupported_timezone', '/timezone');
    });
    it.each(['include', 'all', 'Exclude', ''])(`${report} refuses bots=%j with unsupported_bots`, async (bots) => {
      expectRefusal(await get('lim-a', report, { ...march, bots }), 'unsupported_bots', '/bots');
    });
  }

  it('never counts the bot', async () => {
    const pages = await getOk('lim-a', 'pages-v2', { ...march, limit: '200', internal: 'include' });
    expect(pages.data.rows.map((row: { path: string }) => row.path)).not.toContain('/crawled');
  });
});

describe('pages-v2 cursor', () => {
  let first: any;
  beforeAll(async () => {
    first = await getOk('lim-a', 'pages-v2', { ...march, limit: '1' });
  });

  it('pages with the cursor it issued', async () => {
    expect(first.meta.cursor.next).toEqual(expect.any(String));
    const second = await getOk('lim-a', 'pages-v2', { ...march, limit: '1', cursor: first.meta.cursor.next });
    expect(second.data.rows).toHaveLength(1);
    expect(second.data.rows[0].path).not.toBe(first.data.rows[0].path);
  });

  it('refuses an altered or forged cursor with invalid_param', async () => {
    const cursor: string = first.meta.cursor.next;
    const [body, signature] = cursor.split('.') as [string, string];
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const forgedBody = Buffer.from(JSON.stringify({ ...state, o: 0 }), 'utf8').toString('base64url');
    for (const altered of [
      `${flip(body, body.length - 3)}.${signature}`,
      `${body}.${flip(signature, 2)}`,
      `${forgedBody}.${signature}`,
      body,
      `${cursor}.x`,
      cursor.slice(0, -1),
      'not-a-cursor',
      '',
      `${'A'.repeat(3000)}.${signature}`,
    ]) {
      expectRefusal(await get('lim-a', 'pages-v2', { ...march, limit: '1', cursor: altered }), 'invalid_param', '/cursor');
    }
  });

  it.each([
    ['another range', 'lim-a', { from: '2026-03-02', to: '2026-03-20' }],
    ['another filter', 'lim-a', { ...march, country: 'US' }],
    ['include_params', 'lim-a', { ...march, include_params: 'true' }],
    ['internal traffic', 'lim-a', { ...march, internal: 'include' }],
    ['all sites', 'lim-a', { ...march, scope: 'all-sites' }],
    ['another site', 'lim-b', march],
  ])('refuses a cursor issued for another query (%s)', async (_name, siteId, query) => {
    expectRefusal(await get(siteId, 'pages-v2', { ...query, limit: '1', cursor: first.meta.cursor.next }), 'invalid_param', '/cursor');
  });
});

describe('scope and internal traffic', () => {
  it('scope=all-sites covers every site of the workspace', async () => {
    const site = await getOk('lim-a', 'summary-v2', march);
    const all = await getOk('lim-a', 'summary-v2', { ...march, scope: 'all-sites' });
    expect(site.meta.scope).toEqual({ site_id: 'lim-a' });
    expect(all.meta.scope).toEqual({ workspace: 'lim', all_sites: true });
    expect(all.data.pageviews).toBe(site.data.pageviews + 1);
    expect(all.data.visitors).toBe(site.data.visitors + 1);
    const pages = await getOk('lim-b', 'pages-v2', { ...march, scope: 'all-sites', limit: '200' });
    expect(pages.data.rows.map((row: { path: string }) => row.path).sort()).toEqual(['/', '/a', '/b', '/other-site']);
  });

  it('refuses another scope with invalid_param', async () => {
    expectRefusal(await get('lim-a', 'summary-v2', { ...march, scope: 'site' }), 'invalid_param', '/scope');
  });

  it('leaves internal traffic out by default and adds it with internal=include', async () => {
    const excluded = await getOk('lim-a', 'summary-v2', march);
    const explicit = await getOk('lim-a', 'summary-v2', { ...march, internal: 'exclude' });
    const included = await getOk('lim-a', 'summary-v2', { ...march, internal: 'include' });
    expect(excluded.meta.filters.internal).toBe('exclude');
    expect(included.meta.filters.internal).toBe('include');
    expect(explicit.data).toEqual(excluded.data);
    expect(excluded.data).toMatchObject({ visitors: 2, visits: 2, pageviews: 3, events: 8 });
    expect(included.data).toMatchObject({ visitors: 3, visits: 3, pageviews: 4, events: 9 });
    const pages = await getOk('lim-a', 'pages-v2', { ...march, internal: 'include', limit: '200' });
    expect(pages.data.rows.map((row: { path: string }) => row.path)).toContain('/internal');
  });

  it('refuses another internal value with invalid_param', async () => {
    expectRefusal(await get('lim-a', 'summary-v2', { ...march, internal: 'only' }), 'invalid_param', '/internal');
  });
});

describe('legacy reports', () => {
  const range = { from: '2026-03-09', to: '2026-03-11' };

  it('pageviews: { count, by_day } with every day of the range', async () => {
    expect(await getOk('lim-a', 'pageviews', range)).toEqual({
      count: 3,
      by_day: [
        { date: '2026-03-09', count: 0 },
        { date: '2026-03-10', count: 3 },
        { date: '2026-03-11', count: 0 },
      ],
    });
  });

  it('events: by_name sorted by count descending, then name ascending; bots and internal traffic left out', async () => {
    expect(await getOk('lim-a', 'events', range)).toEqual({
      by_name: [
        { name: 'pageview', count: 3 },
        { name: 'click', count: 2 },
        { name: 'signup', count: 2 },
        { name: 'purchase', count: 1 },
      ],
    });
  });

  it('sessions: { count, avg_duration_s, avg_events, bounce_rate }', async () => {
    expect(await getOk('lim-a', 'sessions', range)).toEqual({ count: 2, avg_duration_s: 300, avg_events: 4, bounce_rate: 0 });
  });

  it.each(prefixes)('%s: an empty range gives zeros, never null or NaN', async (prefix) => {
    const empty = { from: '2026-01-01', to: '2026-01-03' };
    const answers = await Promise.all(legacyReports.map((report) => server.request('GET', `${prefix}${reportPath('lim-a', report, empty)}`)));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).not.toMatch(/null|NaN/);
    }
    expect(answers.map((answer) => answer.body)).toEqual([
      { count: 0, by_day: ['2026-01-01', '2026-01-02', '2026-01-03'].map((date) => ({ date, count: 0 })) },
      { by_name: [] },
      { count: 0, avg_duration_s: 0, avg_events: 0, bounce_rate: 0 },
    ]);
  });
});

describe('access', () => {
  const everyReport = [...legacyReports, ...v2Reports];

  it.each(everyReport)('%s: a key of another workspace gets the same 404 as a missing site', async (report) => {
    const missing = await get('no-such-site', report, march);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'not_found', message: 'Not found' } });
    for (const query of [march, { from: 'bad' }]) {
      const foreign = await get('lim-a', report, query, otherReadKey);
      expect(foreign.status).toBe(404);
      expect(foreign.text).toBe(missing.text);
    }
  });

  it.each(everyReport)('%s: a key without query:read gets 403 forbidden_scope; a query:read key gets 200', async (report) => {
    const refused = await get('lim-a', report, march, ingestOnlyKey);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: 'forbidden_scope', message: expect.any(String) } });
    expect((await get('lim-a', report, march, readKey)).status).toBe(200);
  });

  it.each(everyReport)('%s: no credentials → 401', async (report) => {
    const response = await get('lim-a', report, march, null);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('unauthorized');
  });
});
