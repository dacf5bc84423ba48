// stream-v2 as an independent EventSource client sees it, against the shipped server: the cursor frame first, events
// in ingest order shaped exactly like list-v2's (bots never), a resume by ?cursor= after closing, and the client's own
// reconnection with Last-Event-ID when the server restarts under it: nothing lost, nothing repeated. And a stream past
// the per-credential cap: a 429 the client does not retry, next to the stream that carries on.
import type { FetchLike } from 'eventsource';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBuilt } from '../cli/cli-helpers.ts';
import { QueuedEventSource, type ReceivedMessage } from './_event-source.ts';
import { browserEvent, cleanExit, createSite, ingest, type ShippedServer, shippedServers, utcDate } from './_server.ts';

const siteId = 'stream-e2e';
const streamPath = `/v1/sites/${siteId}/events/stream-v2`;
const crawlerUserAgent = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

const servers = shippedServers();
const openStreams: QueuedEventSource[] = [];

// Safety nets for a hung process; every wait inside is bounded on its own and nothing asserts a duration.
vi.setConfig({ testTimeout: 90_000 });
beforeAll(ensureBuilt, 120_000);
afterEach(async () => {
  for (const stream of openStreams.splice(0)) stream.close();
  await servers.disposeAll();
});

interface Connection {
  path: string;
  lastEventId: string | undefined;
  status: number;
  /** Set when the answer does not match the published document. */
  mismatch?: string;
}

/**
 * The fetch the EventSource uses, doing what a reverse proxy in front of the server would: it adds the admin bearer
 * (an EventSource cannot send headers), sends to wherever the server listens now (a restart changes the port) once
 * `held()` resolves, and logs each connection with its Last-Event-ID and whether its answer matches the document.
 */
function proxyFetch(server: ShippedServer, connections: Connection[], held: () => Promise<void>): FetchLike {
  return async (url, init) => {
    await held();
    const target = new URL(String(url));
    target.host = new URL(server.url).host;
    const response = await fetch(target, { ...init, headers: { ...init.headers, authorization: `Bearer ${server.adminToken}` } });
    const path = target.pathname + target.search;
    const connection: Connection = { path, lastEventId: init.headers['Last-Event-ID'], status: response.status };
    try {
      // A stream's body never ends by itself: only its status and media type are checked.
      const text = response.status === 200 ? '' : await response.clone().text();
      server.answers.check({ method: 'GET', path, status: response.status, contentType: response.headers.get('content-type'), text });
    } catch (error) {
      // Not thrown: the EventSource would take it for a network error and reconnect forever.
      connection.mismatch = (error as Error).message;
    }
    connections.push(connection);
    return response;
  };
}

const idsOf = (messages: ReceivedMessage[]) => messages.map((message) => (JSON.parse(message.data) as { id: string }).id);
const idsSent = (events: Record<string, unknown>[]) => events.map((event) => event.id as string);

/** list-v2's events of yesterday and today (the events here are stamped now), by id. */
async function listedEvents(server: ShippedServer): Promise<Map<string, unknown>> {
  const listed = await server.request('GET', `/v1/sites/${siteId}/events/list-v2?from=${utcDate(-1)}&to=${utcDate()}&limit=200`);
  expect(listed.status, listed.text).toBe(200);
  return new Map((listed.body.data.events as { id: string }[]).map((event) => [event.id, event]));
}

describe('stream-v2 through the eventsource package, against the shipped server', () => {
  it('delivers in ingest order, resumes by cursor and by Last-Event-ID across a restart, with nothing lost or repeated', async () => {
    const server = await servers.start();
    await createSite(server, siteId);
    const connections: Connection[] = [];
    let held = Promise.resolve();
    const fetchThroughProxy = proxyFetch(server, connections, () => held);
    const openStream = (query = '') => {
      const stream = new QueuedEventSource(`${server.url}${streamPath}${query}`, { types: ['cursor', 'event'], fetch: fetchThroughProxy });
      openStreams.push(stream);
      return stream;
    };

    // Committed before the stream opens: a stream without a cursor tails, so this one never comes.
    await ingest(server, '/v1/s2s/events', siteId, [browserEvent(siteId, { anon_id: 'earlier' })]);

    const first = openStream();
    const opening = await first.next('the cursor frame of a new stream');
    expect(opening.type).toBe('cursor');
    expect(JSON.parse(opening.data)).toEqual({ cursor: expect.any(String) });

    const pageview = browserEvent(siteId, { url: 'https://shop.example/pricing?utm_source=newsletter' });
    const crawl = browserEvent(siteId, { anon_id: 'crawler', context: { user_agent: crawlerUserAgent } });
    const signup = browserEvent(siteId, {
      type: 'signup',
      anon_id: 'visitor-2',
      url: 'https://shop.example/join?plan=pro',
      referrer: 'https://news.example/post',
      props: { plan: 'pro' },
    });
    const click = browserEvent(siteId, { type: 'click', url: null });
    await ingest(server, '/v1/s2s/events', siteId, [pageview, crawl, signup]);
    await ingest(server, '/v1/s2s/events', siteId, [click]);
    const live = await first.take(3, 'event', 'the events committed after the stream opened');
    // Ingest order, across two requests; the crawler is stored but never delivered.
    expect(idsOf(live)).toEqual(idsSent([pageview, signup, click]));
    // Every event carries its own resume cursor as the SSE id, which the client exposes as lastEventId.
    for (const message of live) expect(message.lastEventId).not.toBe('');
    expect(new Set(live.map((message) => message.lastEventId)).size).toBe(3);
    // Each message's data is the very event list-v2 lists (list-v2's answer is checked against the document).
    const listed = await listedEvents(server);
    for (const message of live) {
      const event = JSON.parse(message.data) as { id: string };
      expect(event).toEqual(listed.get(event.id));
    }
    expect(JSON.parse(live[1]!.data)).toMatchObject({
      type: 'signup',
      anon_id: 'visitor-2',
      url: 'https://shop.example/join?plan=pro',
      path: '/join',
      referrer: 'https://news.example/post',
      source: 'news.example',
      browser: 'Firefox',
      os: 'Linux',
      device_type: 'desktop',
      props: { plan: 'pro' },
      ts: signup.ts,
      received_at: expect.any(String),
    });
    expect(JSON.parse(live[2]!.data)).toMatchObject({ type: 'click', url: null, path: null });

    // Closed; events keep coming while nobody listens; a new EventSource resumes from the last id it saw.
    first.close();
    const missed = await ingest(server, '/v1/s2s/events', siteId, [browserEvent(siteId), browserEvent(siteId, { anon_id: 'visitor-3' })]);
    const lastSeen = live[2]!.lastEventId;
    const resumedQuery = `?cursor=${encodeURIComponent(lastSeen)}`;
    const resumed = openStream(resumedQuery);
    const resumedOpening = await resumed.next('the cursor frame of the resumed stream');
    expect(resumedOpening.type).toBe('cursor');
    expect(JSON.parse(resumedOpening.data)).toEqual({ cursor: lastSeen });
    expect(idsOf(await resumed.take(2, 'event', 'the events committed while no stream was open'))).toEqual(idsSent(missed));
    // Nothing repeated: delivery is in ingest order, so a repeat would come before this later event.
    const marker = await ingest(server, '/v1/s2s/events', siteId, [browserEvent(siteId)]);
    const [markerMessage] = await resumed.take(1, 'event', 'the event committed after the catch-up');
    expect(idsOf([markerMessage!])).toEqual(idsSent(marker));

    // The server restarts under the open stream (SIGTERM ends it; the client schedules a reconnect by itself). The
    // proxy holds that reconnection until events are committed to the new process, so they can only come through
    // Last-Event-ID: the cursor in the EventSource's URL is older and would repeat the catch-up and the marker.
    let release!: () => void;
    held = new Promise((resolve) => (release = resolve));
    expect(await server.stop(), server.output()).toEqual(cleanExit);
    await server.restart();
    const whileAway = await ingest(server, '/v1/s2s/events', siteId, [browserEvent(siteId, { anon_id: 'visitor-4' }), browserEvent(siteId)]);
    release();
    const reopening = await resumed.next('the cursor frame after the EventSource reconnected by itself');
    expect(reopening.type).toBe('cursor');
    expect(JSON.parse(reopening.data)).toEqual({ cursor: markerMessage!.lastEventId });
    expect(idsOf(await resumed.take(2, 'event', 'the events committed before the client reconnected'))).toEqual(idsSent(whileAway));
    const afterRestart = await ingest(server, '/v1/s2s/events', siteId, [browserEvent(siteId)]);
    expect(idsOf(await resumed.take(1, 'event', 'the event committed after the reconnection'))).toEqual(idsSent(afterRestart));
    expect(resumed.reconnectsScheduled).toBe(1);

    expect(connections).toEqual([
      { path: streamPath, lastEventId: undefined, status: 200 },
      { path: streamPath + resumedQuery, lastEventId: undefined, status: 200 },
      { path: streamPath + resumedQuery, lastEventId: markerMessage!.lastEventId, status: 200 },
    ]);

    resumed.close();
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });

  it('refuses a stream past the per-credential cap with 429, which the EventSource takes as final, while the open one carries on', async () => {
    const server = await servers.start({ EVENT_STREAMS_PER_CREDENTIAL: '1' });
    await createSite(server, siteId);
    const connections: Connection[] = [];
    // Both through the proxy, so both with the admin token: one credential.
    const fetchThroughProxy = proxyFetch(server, connections, () => Promise.resolve());
    const openStream = () => {
      const stream = new QueuedEventSource(`${server.url}${streamPath}`, { types: ['cursor', 'event'], fetch: fetchThroughProxy });
      openStreams.push(stream);
      return stream;
    };

    const only = openStream();
    expect((await only.next('the cursor frame of the one stream the credential may open')).type).toBe('cursor');
    const refused = openStream();
    await expect(refused.next('the refusal of a second stream')).rejects.toThrow(/EventSource failed \(429:/);
    // A 429 is not a dropped connection: the client does not retry on its own.
    expect(refused.reconnectsScheduled).toBe(0);

    const sent = await ingest(server, '/v1/s2s/events', siteId, [browserEvent(siteId)]);
    expect(idsOf(await only.take(1, 'event', 'an event on the stream that was let in'))).toEqual(idsSent(sent));
    expect(connections).toEqual([
      { path: streamPath, lastEventId: undefined, status: 200 },
      { path: streamPath, lastEventId: undefined, status: 429 },
    ]);
    only.close();
    expect(await server.stop(), server.output()).toEqual(cleanExit);
  });
});
