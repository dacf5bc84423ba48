// GET /sites/:siteId/users/:userId/timeline over real HTTP: cross-device merge through identities (events from
// before the binding and without user_id included), limit and before, tie-safe paging by next_before, the fields
// shown (never raw, props or the user agent), user_not_found, access and the query plan.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userAnonIdsSql } from '../../src/projector/queries/user-anon-ids.ts';
import { visitorTimelineSql } from '../../src/projector/queries/visitor-events.ts';
import { makeEvent, seedWorkspace, startTestServer, type TestServer } from '../_setup.ts';
import { isoPattern, manualClock, prefixes, uuidPattern } from '../admin/_helpers.ts';

const clock = manualClock('2026-03-20T12:00:00.000Z');
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const timelineFields = ['anon_id', 'browser', 'city', 'country', 'device_type', 'id', 'os', 'referrer', 'ts', 'type', 'url'];

let server: TestServer;
let readKey: string;
let ingestOnlyKey: string;
let adminKey: string;
let otherReadKey: string;

/** An ISO time `minutes` after 2026-03-01T00:00Z (plus `ms` milliseconds). */
function at(minutes: number, ms = 0): string {
  return new Date(Date.parse('2026-03-01T00:00:00.000Z') + minutes * 60_000 + ms).toISOString();
}

async function post(siteId: string, events: Record<string, unknown>[], userAgent = chrome): Promise<void> {
  for (let offset = 0; offset < events.length; offset += 500) {
    const body = events.slice(offset, offset + 500);
    let response = await server.request('POST', '/events', { token: siteId, body, headers: { 'user-agent': userAgent } });
    // 503 overloaded asks the client to retry (CONTRACT section 2); a busy shared machine can see one.
    for (let attempt = 0; response.status === 503 && attempt < 5; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      response = await server.request('POST', '/events', { token: siteId, body, headers: { 'user-agent': userAgent } });
    }
    expect(response.status, response.text).toBe(202);
  }
}

function timelinePath(siteId: string, userId: string, query: Record<string, string> = {}): string {
  const search = new URLSearchParams(query).toString();
  return `/sites/${siteId}/users/${encodeURIComponent(userId)}/timeline${search ? `?${search}` : ''}`;
}

async function timeline(siteId: string, userId: string, query: Record<string, string> = {}, token?: string) {
  const response = await server.request('GET', timelinePath(siteId, userId, query), { token });
  expect(response.status, response.text).toBe(200);
  return response.body as { events: Record<string, unknown>[]; next_before: string | null };
}

/** What the timeline must show, computed naively from the stored rows (the bindings once the projector has them). */
async function expectedIds(siteId: string, userId: string): Promise<string[]> {
  await server.projected();
  return (
    server.db
      .prepare(
        `SELECT id FROM events WHERE site_id = ? AND anon_id IN (SELECT anon_id FROM identities WHERE site_id = ? AND user_id = ?)
          ORDER BY ts DESC, seq DESC`,
      )
      .all(siteId, siteId, userId) as { id: string }[]
  ).map((row) => row.id);
}

/** Walks every page; checks each page's size rule and returns the ids in order. */
async function walk(siteId: string, userId: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let before: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await timeline(siteId, userId, { limit: String(limit), ...(before ? { before } : {}) });
    const times = page.events.map((event) => event.ts as string);
    // A page holds at most `limit` rows, except one that is a single millisecond with more events than that.
    if (page.events.length > limit) expect(new Set(times).size).toBe(1);
    if (page.next_before !== null) {
      expect(page.events.length).toBeGreaterThan(0);
      expect(page.next_before).toBe(times[times.length - 1]);
    }
    ids.push(...page.events.map((event) => event.id as string));
    if (page.next_before === null) return ids;
    before = page.next_before;
  }
  throw new Error('paging did not end');
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  const people = await seedWorkspace(server, 'people', { sites: ['tl-a', 'tl-b'], scopes: ['query:read'] });
  readKey = people.key!;
  const other = await seedWorkspace(server, 'people-other', { sites: ['tl-x'], scopes: ['query:read'] });
  otherReadKey = other.key!;
  for (const [scopes, assign] of [
    [['ingest:write'], (key: string) => (ingestOnlyKey = key)],
    [['admin'], (key: string) => (adminKey = key)],
  ] as const) {
    const response = await server.request('POST', '/workspaces/people/keys', { body: { label: 'scoped', scopes } });
    assign(response.body.plaintext);
  }
});
afterAll(() => server.close());

describe('cross-device merge', () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    const event = (name: string, anonId: string, minutes: number, overrides: Record<string, unknown> = {}) => {
      const made = makeEvent('tl-a', { anon_id: anonId, ts: at(minutes), ...overrides });
      ids[name] = made.id as string;
      return made;
    };
    // The phone browses anonymously, then logs in; the laptop browses, signs up as the same user, browses on.
    await post('tl-a', [
      event('phoneBrowse', 'phone', 1, { referrer: 'https://news.example/story', props: { secret: 'prop-value-never-shown' } }),
      event('phoneLogin', 'phone', 2, { type: 'login', url: null, user_id: 'ada' }),
    ], iphone);
    await post('tl-a', [
      event('laptopBrowse', 'laptop', 3),
      event('laptopSignup', 'laptop', 4, { type: 'signup', user_id: 'ada' }),
      event('laptopAfter', 'laptop', 5),
      event('stranger', 'stranger', 6, { user_id: 'bob' }),
    ]);
    await post('tl-a', [event('crawl', 'phone', 7, { url: 'https://example.com/crawled' })], googlebot);
    // The same anon_id and user id on another site: not this site's person.
    await post('tl-b', [makeEvent('tl-b', { anon_id: 'phone', ts: at(8), user_id: 'ada' })]);
  });

  it.each(prefixes)('%s: every anon_id ever bound, events from before the binding and without user_id included', async (prefix) => {
    const response = await server.request('GET', `${prefix}${timelinePath('tl-a', 'ada')}`);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['events', 'next_before']);
    const events = response.body.events as Record<string, unknown>[];
    expect(events.map((event) => event.id)).toEqual([ids.crawl, ids.laptopAfter, ids.laptopSignup, ids.laptopBrowse, ids.phoneLogin, ids.phoneBrowse]);
    expect(events.map((event) => event.id)).toEqual((await expectedIds('tl-a', 'ada')));
    expect(response.body.next_before).toBeNull();
  });

  it('shows exactly the timeline fields, never raw, props or the user agent', async () => {
    const response = await server.request('GET', timelinePath('tl-a', 'ada'));
    for (const event of response.body.events as Record<string, unknown>[]) {
      expect(Object.keys(event).sort()).toEqual(timelineFields);
      expect(event.id).toMatch(uuidPattern);
      expect(event.ts).toMatch(isoPattern);
    }
    for (const hidden of ['prop-value-never-shown', 'secret', 'iPhone OS', 'Windows NT', 'Googlebot/2.1', '"raw"', '"props"', 'user_agent', '"user_id"', '"seq"']) {
      expect(response.text).not.toContain(hidden);
    }
    const browse = (response.body.events as Record<string, unknown>[]).find((event) => event.id === ids.phoneBrowse)!;
    expect(browse).toMatchObject({ type: 'pageview', url: 'https://example.com/page', ts: at(1), anon_id: 'phone', referrer: 'https://news.example/story', device_type: 'mobile' });
    expect(browse.browser).toEqual(expect.any(String));
    expect(browse.os).toBe('iOS');
    const login = (response.body.events as Record<string, unknown>[]).find((event) => event.id === ids.phoneLogin)!;
    expect(login).toMatchObject({ type: 'login', url: null, referrer: null });
  });

  it('includes bot events: a timeline is the person\'s whole stored history', async () => {
    const events = (await timeline('tl-a', 'ada')).events;
    expect(events[0]).toMatchObject({ id: ids.crawl, url: 'https://example.com/crawled' });
  });

  it('keeps sites apart: the same user id on another site is another person', async () => {
    const other = await timeline('tl-b', 'ada');
    expect(other.events).toHaveLength(1);
    expect(other.events[0]!.anon_id).toBe('phone');
    expect(other.events[0]!.ts).toBe(at(8));
    expect((await timeline('tl-a', 'bob')).events.map((event) => event.id)).toEqual([ids.stranger]);
  });

  it('answers 404 user_not_found in the structured envelope for an unknown user of the site', async () => {
    for (const [siteId, userId] of [['tl-a', 'nobody'], ['tl-b', 'bob'], ['tl-a', 'ADA']]) {
      const response = await server.request('GET', timelinePath(siteId!, userId!));
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: { code: 'user_not_found', message: expect.any(String) } });
    }
  });

  it('decodes user ids with reserved characters', async () => {
    for (const userId of ['ada@example.com', 'team/ada', 'ada lovelace', 'ä?#&', '100%', '%41']) {
      const event = makeEvent('tl-a', { anon_id: `device-of-${userId}`, ts: at(9), user_id: userId });
      await post('tl-a', [event]);
      expect((await timeline('tl-a', userId)).events.map((row) => row.id)).toEqual([event.id]);
    }
  });
});

describe('limit and before', () => {
  const total = 620;
  beforeAll(async () => {
    // 620 events one second apart, over three devices bound to one user.
    const events = Array.from({ length: total }, (_, index) =>
      makeEvent('tl-a', { anon_id: `many-${index % 3}`, ts: at(100, index * 1000), ...(index < 3 ? { user_id: 'many' } : {}) }),
    );
    await post('tl-a', events);
  });

  it('returns 50 rows by default, newest first', async () => {
    const page = await timeline('tl-a', 'many');
    expect(page.events).toHaveLength(50);
    expect(page.events[0]!.ts).toBe(at(100, (total - 1) * 1000));
    expect(page.events.map((event) => event.id)).toEqual((await expectedIds('tl-a', 'many')).slice(0, 50));
    expect(page.next_before).toBe(page.events[49]!.ts);
  });

  it.each([
    ['1', 1],
    ['500', 500],
    ['007', 7],
  ])('accepts limit=%s', async (limit, rows) => {
    const page = await timeline('tl-a', 'many', { limit });
    expect(page.events).toHaveLength(rows);
    expect(page.events.map((event) => event.id)).toEqual((await expectedIds('tl-a', 'many')).slice(0, rows));
    expect(page.next_before).toBe(page.events[rows - 1]!.ts);
  });

  it.each(['0', '501', '-1', '1.5', 'ten', '', '99999999999'])('refuses limit=%j with 400 invalid_param', async (limit) => {
    const response = await server.request('GET', timelinePath('tl-a', 'many', { limit }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: { code: 'invalid_param', message: expect.any(String), details: [{ path: '/limit', message: expect.any(String) }] } });
  });

  it('refuses a repeated limit', async () => {
    const response = await server.request('GET', `${timelinePath('tl-a', 'many')}?limit=5&limit=6`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_param');
  });

  it.each(['yesterday', '2026-03-01', '2026-03-01T00:00:00', '2026-02-30T00:00:00Z', '2026-03-01T24:00:00Z', ''])('refuses before=%j with 400 invalid_param', async (before) => {
    const response = await server.request('GET', timelinePath('tl-a', 'many', { before }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: { code: 'invalid_param', message: expect.any(String), details: [{ path: '/before', message: expect.any(String) }] } });
  });

  it('returns only rows strictly before `before`, whatever its offset or precision', async () => {
    const tenth = at(100, 10_000);
    const strictly = await timeline('tl-a', 'many', { before: tenth, limit: '500' });
    expect(strictly.events.map((event) => event.ts)).toEqual(Array.from({ length: 10 }, (_, index) => at(100, (9 - index) * 1000)));
    expect(strictly.next_before).toBeNull();
    // The same instant written with an offset.
    const offset = await timeline('tl-a', 'many', { before: '2026-03-01T03:40:10+02:00', limit: '500' });
    expect(offset.events).toEqual(strictly.events);
    // Half a millisecond later: the event at exactly `tenth` is strictly before it.
    const later = await timeline('tl-a', 'many', { before: tenth.replace('Z', '5Z'), limit: '500' });
    expect(later.events).toHaveLength(11);
    expect(later.events[0]!.ts).toBe(tenth);
    const none = await timeline('tl-a', 'many', { before: at(0) });
    expect(none).toEqual({ events: [], next_before: null });
  });

  it('walks every row exactly once, in order, and ends with next_before null', async () => {
    expect(await walk('tl-a', 'many', 50)).toEqual((await expectedIds('tl-a', 'many')));
    expect(await walk('tl-a', 'many', 500)).toEqual((await expectedIds('tl-a', 'many')));
  });

  it('answers next_before null when the last row is on the page, even a full page', async () => {
    const last = await timeline('tl-a', 'many', { before: at(100, 7000), limit: '7' });
    expect(last.events).toHaveLength(7);
    expect(last.next_before).toBeNull();
  });
});

describe('paging through events that share a millisecond', () => {
  // Group sizes in ms order; each group's events are spread over two devices, so ties span anon_ids too.
  const groups = [2, 1, 4, 1, 3, 5, 1, 1, 2, 6, 1];
  beforeAll(async () => {
    const events = groups.flatMap((size, group) =>
      Array.from({ length: size }, (_, index) =>
        makeEvent('tl-a', { anon_id: `tie-${index % 2}`, ts: at(200, group * 17), ...(group === 0 ? { user_id: 'ties' } : {}) }),
      ),
    );
    // Shuffled arrival: ingest order (seq) is not event order.
    await post('tl-a', events.reverse());
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 30])('limit %i: nothing lost or repeated', async (limit) => {
    expect(await walk('tl-a', 'ties', limit)).toEqual((await expectedIds('tl-a', 'ties')));
  });

  it('stops short of a millisecond that would straddle the page', async () => {
    // Newest first the groups are 1, 6, 2, …: with limit 3 the first page stops after the single event.
    const first = await timeline('tl-a', 'ties', { limit: '3' });
    expect(first.events.map((event) => event.ts)).toEqual([at(200, 10 * 17)]);
    expect(first.next_before).toBe(at(200, 10 * 17));
    // The group of 6 is larger than the limit: it comes whole, as the only way to page by an ISO time.
    const second = await timeline('tl-a', 'ties', { limit: '3', before: first.next_before! });
    expect(second.events).toHaveLength(6);
    expect(new Set(second.events.map((event) => event.ts))).toEqual(new Set([at(200, 9 * 17)]));
    expect(second.next_before).toBe(at(200, 9 * 17));
    // Inside one millisecond the order is still deterministic (newest ingest first).
    expect(second.events.map((event) => event.id)).toEqual((await expectedIds('tl-a', 'ties')).slice(1, 7));
  });

  it('answers next_before null when an oversized last millisecond is the end', async () => {
    const oldest = await timeline('tl-a', 'ties', { limit: '1', before: at(200, 17) });
    expect(oldest.events).toHaveLength(2);
    expect(oldest.next_before).toBeNull();
  });
});

describe('access', () => {
  const notFound = { error: { code: 'not_found', message: 'Not found' } };

  it('accepts the admin token, a query:read key and an admin-scoped key of the workspace', async () => {
    for (const token of [undefined, readKey, adminKey]) {
      expect((await timeline('tl-a', 'ada', {}, token)).events.length).toBeGreaterThan(0);
    }
  });

  it('refuses a key without query:read with 403 forbidden_scope', async () => {
    const response = await server.request('GET', timelinePath('tl-a', 'ada'), { token: ingestOnlyKey });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('forbidden_scope');
  });

  it('answers a foreign site exactly like a missing one, before looking at the user or the parameters', async () => {
    const missing = await server.request('GET', timelinePath('no-such-site', 'ada'));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(notFound);
    for (const path of [timelinePath('tl-a', 'ada'), timelinePath('tl-a', 'nobody'), timelinePath('tl-a', 'ada', { limit: '0' }), timelinePath('no-such-site', 'ada')]) {
      const response = await server.request('GET', path, { token: otherReadKey });
      expect(response.status, path).toBe(404);
      expect(response.text).toBe(missing.text);
    }
  });

  it('answers 401 without credentials or with a bad key', async () => {
    for (const token of [null, 'sk_people_not-a-real-key-0000000000000000']) {
      const response = await server.request('GET', timelinePath('tl-a', 'ada'), { token });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('unauthorized');
    }
  });

  it('answers the other workspace\'s key for its own site: that user is unknown there', async () => {
    const response = await server.request('GET', timelinePath('tl-x', 'ada'), { token: otherReadKey });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('user_not_found');
  });
});

describe('query plan', () => {
  const plans = [
    [
      userAnonIdsSql,
      { site_id: 'tl-a', user_id: 'many' },
      // The projector's bindings, and those of the event log's tail it has not reached yet (seq > its position).
      [
        'SEARCH identities USING COVERING INDEX identities_by_user (site_id=? AND user_id=?)',
        'SEARCH events USING INDEX events_by_site (site_id=? AND rowid>?)',
        'SEARCH projector_state USING INTEGER PRIMARY KEY (rowid=?)',
      ],
    ],
    [
      visitorTimelineSql,
      { site_id: 'tl-a', anon_id: 'many-0', not_before: 0, before: Date.parse('2027-01-01'), limit: 51 },
      // The projector's visitor index, walked backwards from `before` (no sort), each row's event by seq; then the
      // log's tail. Each half stops at `limit` rows; only those are scanned and sorted again to merge them.
      [
        'SEARCH ve USING PRIMARY KEY (vid=? AND ts>? AND ts<?)',
        'SEARCH report_visitors USING PRIMARY KEY (site_id=? AND anon_id=?)',
        'SEARCH e USING INTEGER PRIMARY KEY (rowid=?)',
        'SCAN (subquery-2)',
        'SEARCH e USING INDEX events_by_site (site_id=? AND rowid>?)',
        'SEARCH projector_state USING INTEGER PRIMARY KEY (rowid=?)',
        'SCAN (subquery-5)',
      ],
    ],
  ] as const;

  it.each(['without', 'with'])('reads identities_by_user, the visitor index and the tail of the log, no scan, %s ANALYZE statistics', (statistics) => {
    if (statistics === 'with') server.db.exec('ANALYZE');
    for (const [sql, params, expected] of plans) {
      const details = (server.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((row) => row.detail);
      // Every table is searched through its index, none scanned; a sort only of the few merged anon_ids.
      expect(details.filter((detail) => /^(SEARCH|SCAN) /.test(detail))).toEqual(expected);
    }
  });
});
