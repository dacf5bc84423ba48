// GET /sites/:siteId/events/stream-v2 over real HTTP: the cursor frame first, live delivery after each commit,
// filters (name, anon_id, from/to on the event time, the dimension filters as on list-v2), resume by cursor and by
// Last-Event-ID with nothing lost or repeated, heartbeats, the per-site cap, and streams ending when the app or the
// server stops.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { EventItem } from '../../src/events/answers.ts';
import { startServer } from '../../src/server.ts';
import { makeTempDir, seedWorkspace, startTestServer, testAdminToken, type TestServer } from '../_setup.ts';
import { manualClock } from '../admin/_helpers.ts';
import { googlebot, poll, send, SseClient, wireEvent } from './_helpers.ts';

const path = (site: string, query = '') => `/sites/${site}/events/stream-v2${query}`;

async function openStream(server: TestServer, url: string, options: { token?: string; headers?: Record<string, string> } = {}) {
  const opened = await SseClient.open(server, url, options);
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const client = opened.client!;
  const first = await client.next();
  expect(first.event).toBe('cursor');
  return { client, cursor: (JSON.parse(first.data!) as { cursor: string }).cursor };
}

describe('stream-v2', () => {
  let server: TestServer;
  let otherKey: string;
  let readKey: string;
  const open: SseClient[] = [];
  const track = <T extends { client: SseClient }>(opened: T) => {
    open.push(opened.client);
    return opened;
  };

  beforeAll(async () => {
    server = await startTestServer();
    readKey = (await seedWorkspace(server, 'acme', { sites: ['live', 'quiet', 'filtered', 'traffic', 'resume', 'bulk'], scopes: ['query:read'] })).key!;
    otherKey = (await seedWorkspace(server, 'other', { sites: ['elsewhere'], scopes: ['query:read'] })).key!;
  });
  afterAll(async () => {
    for (const client of open) client.close();
    await server.close();
  });

  it('sends the cursor frame at once when nothing is waiting, as text/event-stream', async () => {
    const opened = await SseClient.open(server, path('quiet'), { token: readKey });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(opened.headers.get('cache-control')).toBe('no-cache, no-transform');
    // The connection carries only this response: when the server ends it, the socket closes too.
    expect(opened.headers.get('connection')).toBe('close');
    const client = track({ client: opened.client! }).client;
    const first = await client.next();
    expect(first).toEqual({ event: 'cursor', data: expect.any(String) });
    expect(JSON.parse(first.data!)).toEqual({ cursor: expect.any(String) });
  });

  it('tails: delivers events committed after it opened, in ingest order, shaped like list-v2 events', async () => {
    const [before] = await send(server, 'live', [wireEvent('live')]);
    const { client } = track(await openStream(server, path('live')));
    const batch = await send(server, 'live', [
      wireEvent('live', { type: 'signup', props: { plan: 'pro' }, url: 'https://shop.example/join?x=1', referrer: 'https://news.example/a' }),
      wireEvent('live'),
    ]);
    const later = await send(server, 'live', [wireEvent('live', { type: 'click', url: null })]);
    const received = await client.events(3);
    expect(received.map(({ event }) => event.id)).toEqual([...batch, ...later].map((event) => event.id));
    expect(received.map(({ event }) => event.id)).not.toContain(before!.id);
    for (const { event } of received) expect(v.safeParse(EventItem, event).success, JSON.stringify(event)).toBe(true);
    expect(received[0]!.event).toMatchObject({ type: 'signup', path: '/join', url: 'https://shop.example/join?x=1', props: { plan: 'pro' }, source: 'news.example', browser: 'Chrome', device_type: 'desktop' });
    expect(received[2]!.event).toMatchObject({ type: 'click', url: null, path: null, props: null });
    // Each event's id is a distinct resume cursor.
    expect(new Set(received.map(({ cursor }) => cursor)).size).toBe(3);
  });

  it('filters by name and anon_id; skipped events are never sent', async () => {
    const { client } = track(await openStream(server, path('filtered', '?name=signup&anon_id=alice')));
    const sent = await send(server, 'filtered', [
      wireEvent('filtered', { anon_id: 'alice' }),
      wireEvent('filtered', { anon_id: 'bob', type: 'signup' }),
      wireEvent('filtered', { anon_id: 'alice', type: 'signup' }),
    ]);
    await send(server, 'filtered', [wireEvent('filtered', { anon_id: 'bob', type: 'signup' })]);
    const last = await send(server, 'filtered', [wireEvent('filtered', { anon_id: 'alice', type: 'signup', url: null })]);
    // Events come in seq order: had a skipped one been sent, it would come before these.
    const received = await client.events(2);
    expect(received.map(({ event }) => event.id)).toEqual([sent[2]!.id, last[0]!.id]);
  });

  it('never sends bots; sends internal traffic only with internal=include', async () => {
    const plain = track(await openStream(server, path('traffic'))).client;
    const withInternal = track(await openStream(server, path('traffic', '?internal=include'))).client;
    const sent = await send(server, 'traffic', [
      wireEvent('traffic', { context: { user_agent: googlebot } }),
      wireEvent('traffic', { internal: true }),
      wireEvent('traffic'),
    ]);
    expect((await plain.events(1)).map(({ event }) => event.id)).toEqual([sent[2]!.id]);
    expect((await withInternal.events(2)).map(({ event }) => event.id)).toEqual([sent[1]!.id, sent[2]!.id]);
  });

  it('resumes by cursor and by Last-Event-ID (which wins) with nothing lost or repeated', async () => {
    const first = track(await openStream(server, path('resume')));
    const e1 = await send(server, 'resume', [wireEvent('resume'), wireEvent('resume')]);
    const received1 = await first.client.events(2);
    first.client.close();
    // Sent while nobody listens.
    const e2 = await send(server, 'resume', [wireEvent('resume'), wireEvent('resume')]);

    // By the cursor parameter: the last event's id.
    const byCursor = track(await openStream(server, path('resume', `?cursor=${encodeURIComponent(received1[1]!.cursor)}`)));
    expect(byCursor.cursor).toBe(received1[1]!.cursor);
    expect((await byCursor.client.events(2)).map(({ event }) => event.id)).toEqual(e2.map((event) => event.id));

    // From the first cursor frame: everything since the stream first opened.
    const fromStart = track(await openStream(server, path('resume', `?cursor=${encodeURIComponent(first.cursor)}`)));
    expect((await fromStart.client.events(4)).map(({ event }) => event.id)).toEqual([...e1, ...e2].map((event) => event.id));

    // Last-Event-ID is what a reconnecting EventSource sends, next to its original URL: the header wins.
    const byHeader = track(
      await openStream(server, path('resume', `?cursor=${encodeURIComponent(first.cursor)}`), { headers: { 'last-event-id': received1[0]!.cursor } }),
    );
    expect((await byHeader.client.events(3)).map(({ event }) => event.id)).toEqual([e1[1]!, ...e2].map((event) => event.id));

    // And all of them carry on live.
    const e3 = await send(server, 'resume', [wireEvent('resume')]);
    for (const client of [byCursor.client, fromStart.client, byHeader.client]) expect((await client.events(1))[0]!.event.id).toBe(e3[0]!.id);
  });

  it('delivers a backlog and a burst larger than one read batch (500), in order, once each', async () => {
    const start = track(await openStream(server, path('bulk')));
    const burst = await send(server, 'bulk', Array.from({ length: 1_200 }, () => wireEvent('bulk')));
    expect((await start.client.events(1_200)).map(({ event }) => event.id)).toEqual(burst.map((event) => event.id));
    const backlog = track(await openStream(server, path('bulk', `?cursor=${encodeURIComponent(start.cursor)}`)));
    expect((await backlog.client.events(1_200)).map(({ event }) => event.id)).toEqual(burst.map((event) => event.id));
  });

  it.each([
    ['a forged cursor', '?cursor=abc.def', {}, '/cursor'],
    ['a cursor of another filter', 'OTHER', {}, '/cursor'],
    ['an altered cursor', 'ALTERED', {}, '/cursor'],
    ['a forged Last-Event-ID', '', { 'last-event-id': 'eyJrIjoiZXZlbnRzLXN0cmVhbSJ9.AAAA' }, '/last-event-id'],
  ])('refuses %s with 400 invalid_param', async (_name, query, headers, pointer) => {
    const { cursor } = track(await openStream(server, path('quiet', '?name=signup')));
    let url = path('quiet', query);
    if (query === 'OTHER') url = path('quiet', `?cursor=${encodeURIComponent(cursor)}`);
    if (query === 'ALTERED') url = path('quiet', `?name=signup&cursor=${encodeURIComponent(cursor.slice(0, 4) + (cursor[4] === 'A' ? 'B' : 'A') + cursor.slice(5))}`);
    const refused = await SseClient.open(server, url, { headers });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: { code: 'invalid_param', message: expect.any(String), details: [{ path: pointer, message: expect.any(String) }] } });
  });

  it.each([
    ['scope (a stream tails one site)', '?scope=all-sites', 400, 'invalid_param'],
    ['from without to', '?from=2026-01-01', 400, 'invalid_date_param'],
    ['a malformed to', '?from=2026-01-01&to=tomorrow', 400, 'invalid_date_param'],
    ['from after to', '?from=2026-01-02&to=2026-01-01', 400, 'invalid_date_range'],
    ['a range of 368 days', '?from=2025-01-01&to=2026-01-03', 400, 'range_too_large'],
    ['21 values of a dimension filter', `?device=${Array.from({ length: 21 }, (_, index) => `d${index}`).join(',')}`, 400, 'too_many_values'],
    ['a malformed name', '?name=no%20spaces', 400, 'invalid_param'],
    ['an empty anon_id', '?anon_id=', 400, 'invalid_param'],
    ['timezone other than UTC', '?timezone=Europe/Paris', 400, 'unsupported_timezone'],
    ['bots=include', '?bots=include', 400, 'unsupported_bots'],
  ])('refuses %s', async (_name, query, status, code) => {
    const refused = await SseClient.open(server, path('quiet', query));
    expect(refused.status).toBe(status);
    expect(refused.body.error.code).toBe(code);
  });

  it('answers exactly as the V2 reports on access: 401, 404 for foreign and missing sites', async () => {
    expect((await SseClient.open(server, path('quiet'), { token: 'nope' })).status).toBe(401);
    const foreign = await SseClient.open(server, path('quiet'), { token: otherKey });
    const missing = await SseClient.open(server, path('no-such-site'));
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(missing.body.error.code).toBe('not_found');
  });
});

describe('stream-v2 with the common parameters', () => {
  // Fixed event times need a fixed clock: ingest refuses events more than 400 days old.
  let server: TestServer;
  const open: SseClient[] = [];
  const track = <T extends { client: SseClient }>(opened: T) => {
    open.push(opened.client);
    return opened;
  };
  beforeAll(async () => {
    server = await startTestServer({ clock: manualClock('2026-03-20T12:00:00.000Z') });
    await seedWorkspace(server, 'common', { sites: ['ranged', 'dims', 'bound', 'year'] });
  });
  afterAll(async () => {
    for (const client of open) client.close();
    await server.close();
  });

  it('with from/to sends only events whose time is inside [from 00:00, to + 1 day 00:00) UTC', async () => {
    const { client } = track(await openStream(server, path('ranged', '?from=2026-03-10&to=2026-03-11')));
    const sent = await send(server, 'ranged', [
      wireEvent('ranged', { ts: '2026-03-09T23:59:59.999Z' }),
      wireEvent('ranged', { ts: '2026-03-10T00:00:00.000Z' }),
      wireEvent('ranged', { ts: '2026-03-11T23:59:59.999Z' }),
      wireEvent('ranged', { ts: '2026-03-12T00:00:00.000Z' }),
      wireEvent('ranged', { ts: '2026-03-20T11:59:00.000Z' }),
    ]);
    const last = await send(server, 'ranged', [wireEvent('ranged', { ts: '2026-03-11T12:00:00.000Z' })]);
    // Events come in seq order: had one outside the range been sent, it would come before the last.
    const received = await client.events(3);
    expect(received.map(({ event }) => event.id)).toEqual([sent[1]!.id, sent[2]!.id, last[0]!.id]);
    expect(received.map(({ event }) => event.ts)).toEqual(['2026-03-10T00:00:00.000Z', '2026-03-11T23:59:59.999Z', '2026-03-11T12:00:00.000Z']);
  });

  it('accepts a range of 367 days', async () => {
    const { client } = await openStream(server, path('year', '?from=2025-01-01&to=2026-01-02'));
    client.close();
  });

  it('filters by path on the event and by source on its visit, as list-v2 does', async () => {
    const byPath = track(await openStream(server, path('dims', '?path=/keep'))).client;
    const bySource = track(await openStream(server, path('dims', '?source=news.example'))).client;
    const sent = await send(server, 'dims', [
      // alice's visit comes from news.example; her later events have no referrer of their own.
      wireEvent('dims', { anon_id: 'alice', ts: '2026-03-01T10:00:00.000Z', url: 'https://s.example/other', referrer: 'https://news.example/a' }),
      wireEvent('dims', { anon_id: 'alice', ts: '2026-03-01T10:01:00.000Z', url: 'https://s.example/keep' }),
      // bob's visit is direct.
      wireEvent('dims', { anon_id: 'bob', ts: '2026-03-01T10:00:00.000Z', url: 'https://s.example/keep' }),
      wireEvent('dims', { anon_id: 'bob', ts: '2026-03-01T10:01:00.000Z', url: 'https://s.example/other', referrer: 'https://news.example/b' }),
    ]);
    const last = await send(server, 'dims', [wireEvent('dims', { anon_id: 'alice', ts: '2026-03-01T10:02:00.000Z', url: 'https://s.example/keep' })]);
    expect((await byPath.events(3)).map(({ event }) => event.id)).toEqual([sent[1]!.id, sent[2]!.id, last[0]!.id]);
    const fromNews = await bySource.events(3);
    expect(fromNews.map(({ event }) => event.id)).toEqual([sent[0]!.id, sent[1]!.id, last[0]!.id]);
    expect(fromNews[1]!.event.source).toBe('direct');
  });

  it('binds the cursor to from/to and the dimension filters', async () => {
    const query = '?from=2026-03-01&to=2026-03-31&path=/keep';
    const { cursor } = track(await openStream(server, path('bound', query)));
    for (const other of ['', '?path=/keep', '?from=2026-03-01&to=2026-03-31', '?from=2026-03-01&to=2026-03-30&path=/keep', '?from=2026-03-01&to=2026-03-31&path=/other', `${query}&source=news.example`]) {
      const refused = await SseClient.open(server, path('bound', `${other}${other ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`));
      expect(refused.status, other).toBe(400);
      expect(refused.body).toEqual({ error: { code: 'invalid_param', message: expect.any(String), details: [{ path: '/cursor', message: expect.any(String) }] } });
    }
    // With the same parameters it resumes.
    const sent = await send(server, 'bound', [wireEvent('bound', { ts: '2026-03-02T00:00:00.000Z', url: 'https://s.example/keep' })]);
    const resumed = track(await openStream(server, path('bound', `${query}&cursor=${encodeURIComponent(cursor)}`)));
    expect(resumed.cursor).toBe(cursor);
    expect((await resumed.client.events(1))[0]!.event.id).toBe(sent[0]!.id);
  });
});

describe('stream-v2 heartbeat, cap and shutdown', () => {
  let server: TestServer;
  const open: SseClient[] = [];
  beforeAll(async () => {
    server = await startTestServer({ env: { EVENT_STREAM_HEARTBEAT_MS: '40', EVENT_STREAMS_PER_SITE: '5' } });
    await seedWorkspace(server, 'capped', { sites: ['beat', 'full', 'spare'] });
  });
  afterAll(async () => {
    for (const client of open) client.close();
    await server.close();
  });

  it('defaults to a heartbeat every 15 s and 5 streams per site', () => {
    expect(loadConfig({})).toMatchObject({ eventStreamHeartbeatMs: 15_000, eventStreamsPerSite: 5 });
  });

  it('sends a comment line at the (injected) heartbeat interval', async () => {
    const { client } = await openStream(server, path('beat'));
    open.push(client);
    expect(await client.next({ heartbeats: true })).toEqual({ comment: 'heartbeat' });
    expect(await client.next({ heartbeats: true })).toEqual({ comment: 'heartbeat' });
  });

  it('refuses a sixth stream of a site with 429 too_many_streams and Retry-After, and accepts one again after a client leaves', async () => {
    const streams: SseClient[] = [];
    for (let index = 0; index < 5; index++) streams.push((await openStream(server, path('full'))).client);
    open.push(...streams);
    const refused = await SseClient.open(server, path('full'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body).toEqual({ error: { code: 'too_many_streams', message: expect.any(String) } });
    // Another site is not affected.
    open.push((await openStream(server, path('spare'))).client);

    streams[0]!.close();
    const accepted = await poll(async () => {
      const attempt = await SseClient.open(server, path('full'));
      return attempt.status === 200 ? attempt.client : (expect(attempt.status).toBe(429), undefined);
    });
    open.push(accepted);
    expect((await accepted.next()).event).toBe('cursor');
    expect((await SseClient.open(server, path('full'))).status).toBe(429);
  });

  it('app.close() ends open streams (after the queue drains) and refuses new ones', async () => {
    const own = await startTestServer();
    await seedWorkspace(own, 'closing', { sites: ['s'] });
    const { client } = await openStream(own, path('s'));
    await own.app.close();
    await client.waitForEnd();
    const refused = await SseClient.open(own, path('s'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    await own.close();
  });

  it('stopping the server (what SIGTERM does) ends open streams instead of waiting for them', async () => {
    const dataDir = makeTempDir();
    const running = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: testAdminToken }));
    const admin = { authorization: `Bearer ${testAdminToken}`, 'content-type': 'application/json' };
    await fetch(`${running.url}/workspaces`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Stop', slug: 'stop' }) });
    await fetch(`${running.url}/workspaces/stop/sites`, { method: 'POST', headers: admin, body: JSON.stringify({ id: 's', name: 'S' }) });
    const opened = await SseClient.open({ url: running.url }, path('s'));
    expect(opened.status).toBe(200);
    expect((await opened.client!.next()).event).toBe('cursor');
    await running.stop();
    await opened.client!.waitForEnd();
  });
});
