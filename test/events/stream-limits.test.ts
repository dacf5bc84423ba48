// stream-v2's limits over real HTTP: the caps per credential (an API key, the admin token), per workspace and on the whole server,
// each at its edge (the last stream accepted, the first refused, accepted again once one leaves); and a reader that
// stops reading: the server holds at most its buffer's bytes for it, then closes it, and the client resumes from its
// last complete event with nothing lost or repeated; a stopping server does not wait for such a reader either.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { makeTempDir, seedWorkspace, startTestServer, testAdminToken, type TestServer } from '../_setup.ts';
import { poll, SseClient, send, wireEvent } from './_helpers.ts';

const path = (site: string) => `/sites/${site}/events/stream-v2`;

/** The value of one series of GET /metrics (`name` with its labels, as printed), 0 when it has none yet. */
async function metric(server: Pick<TestServer, 'url'>, series: string): Promise<number> {
  const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${testAdminToken}` } });
  const line = (await response.text()).split('\n').find((text) => text.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

async function opened(server: TestServer, site: string, token: string): Promise<SseClient> {
  const attempt = await SseClient.open(server, path(site), { token });
  expect(attempt.status, JSON.stringify(attempt.body)).toBe(200);
  expect((await attempt.client!.next()).event).toBe('cursor');
  return attempt.client!;
}

async function refused(server: TestServer, site: string, token: string): Promise<string> {
  const attempt = await SseClient.open(server, path(site), { token });
  expect(attempt.status).toBe(429);
  expect(attempt.headers.get('retry-after')).toBe('5');
  expect(attempt.body).toEqual({ error: { code: 'too_many_streams', message: expect.any(String) } });
  return attempt.body.error.message as string;
}

/** Opens once a stream has left (the server hears of a closed connection on its own time). */
async function openedOnceFreed(server: TestServer, site: string, token: string): Promise<SseClient> {
  return poll(async () => {
    const attempt = await SseClient.open(server, path(site), { token });
    if (attempt.status === 429) return undefined;
    expect(attempt.status).toBe(200);
    return attempt.client!;
  });
}

describe('stream-v2 caps per credential and per server', () => {
  let server: TestServer;
  let keyA: string;
  let keyB: string;
  const open: SseClient[] = [];
  const keep = (client: SseClient) => (open.push(client), client);

  beforeAll(async () => {
    server = await startTestServer({ env: { EVENT_STREAMS_PER_SITE: '2', EVENT_STREAMS_PER_CREDENTIAL: '3', EVENT_STREAMS_TOTAL: '5' } });
    keyA = (await seedWorkspace(server, 'caps', { sites: ['s1', 's2', 's3', 's4', 's5'], scopes: ['query:read'] })).key!;
    keyB = (await server.request('POST', '/workspaces/caps/keys', { body: { label: 'b', scopes: ['query:read'] } })).body.plaintext;
  });
  afterAll(async () => {
    for (const client of open) client.close();
    await server.close();
  });

  it('defaults to 20 streams per credential, 50 per workspace, 200 in all and a buffer of 1 MiB per stream', () => {
    expect(loadConfig({})).toMatchObject({ eventStreamsPerCredential: 20, eventStreamsPerWorkspace: 50, eventStreamsTotal: 200, eventStreamBufferBytes: 1024 * 1024 });
  });

  it('refuses the streams of one credential past its cap, on any site, and counts the refusals by cap', async () => {
    // Key A: its third stream is the last accepted (two on s1 fill that site's cap too).
    const first = keep(await opened(server, 's1', keyA));
    keep(await opened(server, 's1', keyA));
    keep(await opened(server, 's2', keyA));
    // The fourth is refused although its site has none open.
    expect(await refused(server, 's3', keyA)).toContain('This credential');
    expect(await metric(server, 'sightline_event_streams_refused_total{cap="credential"}')).toBe(1);
    // Key B counts on its own: s2 takes one more, then that site is full.
    keep(await opened(server, 's2', keyB));
    expect(await refused(server, 's2', keyB)).toContain('This site');
    expect(await metric(server, 'sightline_event_streams_refused_total{cap="site"}')).toBe(1);
    // The server's fifth stream is the last accepted, whoever asks; the sixth is refused, the admin token's too.
    keep(await opened(server, 's3', keyB));
    expect(await metric(server, 'sightline_event_streams_open')).toBe(5);
    expect(await refused(server, 's4', testAdminToken)).toContain('The server');
    expect(await metric(server, 'sightline_event_streams_refused_total{cap="total"}')).toBe(1);

    // One of key A's streams leaves: key A may open one again, and the server is full again after it.
    first.close();
    keep(await openedOnceFreed(server, 's4', keyA));
    expect(await refused(server, 's5', keyA)).toContain('This credential');
    expect(await refused(server, 's5', testAdminToken)).toContain('The server');
  });
});

describe('stream-v2 cap per workspace', () => {
  let server: TestServer;
  const open: SseClient[] = [];
  const keep = (client: SseClient) => (open.push(client), client);

  beforeAll(async () => {
    // Per credential 2 and per site 5: a workspace reaches its own cap of 3 with two keys before any of those.
    server = await startTestServer({ env: { EVENT_STREAMS_PER_SITE: '5', EVENT_STREAMS_PER_CREDENTIAL: '2', EVENT_STREAMS_PER_WORKSPACE: '3', EVENT_STREAMS_TOTAL: '10' } });
  });
  afterAll(async () => {
    for (const client of open) client.close();
    await server.close();
  });

  it('refuses a workspace its streams past its cap, whatever the key, while another workspace still opens them', async () => {
    const first = (await seedWorkspace(server, 'tenant-a', { sites: ['a1', 'a2', 'a3'], scopes: ['query:read'] })).key!;
    const second = (await server.request('POST', '/workspaces/tenant-a/keys', { body: { label: 'second', scopes: ['query:read'] } })).body.plaintext as string;
    const other = (await seedWorkspace(server, 'tenant-b', { sites: ['b1'], scopes: ['query:read'] })).key!;

    // Issue 24: one tenant's keys, each under its own cap, took every stream of the server. The third is the last in.
    const leaving = keep(await opened(server, 'a1', first));
    keep(await opened(server, 'a2', first));
    keep(await opened(server, 'a3', second));
    // The fourth is refused: the key has room (1 of 2), the site too (1 of 5), the server too (3 of 10).
    expect(await refused(server, 'a1', second)).toContain('This workspace');
    // The admin token counts against the workspace of the site it opens.
    expect(await refused(server, 'a2', testAdminToken)).toContain('This workspace');
    expect(await metric(server, 'sightline_event_streams_refused_total{cap="workspace"}')).toBe(2);

    // The other workspace's first streams are accepted, with its key and with the admin token.
    keep(await opened(server, 'b1', other));
    keep(await opened(server, 'b1', testAdminToken));
    expect(await metric(server, 'sightline_event_streams_open')).toBe(5);

    // A stream of the full workspace closes: the slot is free again, then the workspace is full again.
    leaving.close();
    keep(await openedOnceFreed(server, 'a1', second));
    expect(await refused(server, 'a3', testAdminToken)).toContain('This workspace');
  });
});

interface StalledStream {
  response: IncomingMessage;
  /** Starts reading at last and resolves with everything the connection carried once it is closed. */
  readToEnd(): Promise<string>;
}

/** Opens a stream with node:http and reads nothing of its body: a client that stopped reading. */
async function openStalled(url: string): Promise<StalledStream> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = httpRequest(url, { headers: { authorization: `Bearer ${testAdminToken}`, accept: 'text/event-stream' } }, resolve);
    request.on('error', reject);
    request.end();
  });
  expect(response.statusCode).toBe(200);
  // Unread, the body's buffer fills, then the socket's, then the server's side of the connection.
  response.pause();
  let text = '';
  let closed = false;
  response.on('close', () => (closed = true));
  // The server ends the connection in the middle of the chunked body: the client calls that an error.
  response.on('error', () => undefined);
  return {
    response,
    readToEnd: async () => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.resume();
      await poll(async () => (closed ? true : undefined), 30_000);
      return text;
    },
  };
}

/** The event frames among what a connection carried, up to its last complete one. */
function completeEventFrames(text: string): { id: string; eventId: string }[] {
  const blocks = text.split('\n\n').slice(0, -1);
  return blocks
    .filter((block) => block.includes('\nevent: event\n'))
    .map((block) => {
      const lines = block.split('\n');
      const id = lines.find((line) => line.startsWith('id: '))!.slice(4);
      const data = lines.find((line) => line.startsWith('data: '))!.slice(6);
      return { id, eventId: (JSON.parse(data) as { id: string }).id };
    });
}

// Events large enough that a few batches fill the sockets' buffers and the stream's.
const padded = (site: string) => wireEvent(site, { props: { pad: 'x'.repeat(2_000) } });
const batch = (site: string) => Array.from({ length: 400 }, () => padded(site));

describe('stream-v2 and a client that stops reading', () => {
  const bufferBytes = 65_536;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { EVENT_STREAM_HEARTBEAT_MS: '40', EVENT_STREAM_BUFFER_BYTES: String(bufferBytes) } });
    await seedWorkspace(server, 'slow', { sites: ['slow'] });
  });
  afterAll(() => server.close());

  it('holds at most its buffer for it, closes it when it takes nothing, and the client resumes with nothing lost', async () => {
    const stalled = await openStalled(server.url + path('slow'));
    await poll(async () => ((await metric(server, 'sightline_event_streams_open')) === 1 ? true : undefined));
    const sent: string[] = [];
    // Until the server holds a full buffer for the client (or has already closed it).
    for (let batches = 0; ; batches++) {
      if ((await metric(server, 'sightline_event_streams_slow_closed_total')) > 0) break;
      if ((await metric(server, 'sightline_event_stream_buffered_bytes')) >= bufferBytes) break;
      // Far more than any socket buffers: a stream that never fills is a failure, not a reason to go on.
      expect(batches, 'the stream never filled its buffer').toBeLessThan(100);
      sent.push(...(await send(server, 'slow', batch('slow'))).map((event) => event.id as string));
    }
    await poll(async () => ((await metric(server, 'sightline_event_streams_slow_closed_total')) === 1 ? true : undefined), 30_000);
    expect(await metric(server, 'sightline_event_streams_open')).toBe(0);
    expect(await metric(server, 'sightline_event_stream_buffered_bytes')).toBe(0);

    // What the client got: a prefix of the events, in order; the connection ended after it.
    const received = completeEventFrames(await stalled.readToEnd());
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(sent.length);
    expect(received.map((frame) => frame.eventId)).toEqual(sent.slice(0, received.length));

    // The most the server held for it: the buffer, plus at most one frame (and the response's chunk headers).
    const frameBytes = Math.max(...received.slice(0, 20).map((frame) => Buffer.byteLength(`id: ${frame.id}\nevent: event\ndata: `))) + 2_500;
    const mostHeld = await metric(server, 'sightline_event_stream_buffered_bytes_max');
    expect(mostHeld).toBeGreaterThanOrEqual(bufferBytes);
    expect(mostHeld).toBeLessThanOrEqual(bufferBytes + frameBytes + 1_024);

    // As an EventSource does: reconnect with the last complete event's id. The rest comes, none twice.
    const resumed = await SseClient.open(server, path('slow'), { headers: { 'last-event-id': received.at(-1)!.id } });
    expect(resumed.status).toBe(200);
    expect((await resumed.client!.next()).event).toBe('cursor');
    const rest = await resumed.client!.events(sent.length - received.length);
    expect([...received.map((frame) => frame.eventId), ...rest.map(({ event }) => event.id as string)]).toEqual(sent);
    resumed.client!.close();
  });
});

describe('a stopping server and a client that stopped reading', () => {
  it('ends that stream instead of waiting for it, though its buffer is not full', async () => {
    // A buffer far larger than what is sent: the stream never fills, the server holds what the socket will not take.
    const config = loadConfig({ DATA_DIR: makeTempDir(), PORT: '0', ADMIN_TOKEN: testAdminToken, EVENT_STREAM_HEARTBEAT_MS: '40', EVENT_STREAM_BUFFER_BYTES: String(256 * 1024 * 1024) });
    const running = await startServer(config);
    const admin = { authorization: `Bearer ${testAdminToken}`, 'content-type': 'application/json' };
    await fetch(`${running.url}/workspaces`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Stop', slug: 'stop' }) });
    await fetch(`${running.url}/workspaces/stop/sites`, { method: 'POST', headers: admin, body: JSON.stringify({ id: 'held', name: 'Held' }) });
    const stalled = await openStalled(running.url + path('held'));
    await poll(async () => ((await metric(running, 'sightline_event_streams_open')) === 1 ? true : undefined));
    // Until the server holds 256 KiB for the client: its socket takes nothing more.
    for (let batches = 0; (await metric(running, 'sightline_event_stream_buffered_bytes')) < 256 * 1024; batches++) {
      expect(batches, 'the server never held anything').toBeLessThan(100);
      const events = batch('held');
      const answer = await fetch(`${running.url}/s2s/events`, { method: 'POST', headers: { ...admin, authorization: 'Bearer held' }, body: JSON.stringify(events) });
      expect(answer.status).toBe(202);
    }
    // What SIGTERM does. Without an end to the stream, the server would wait for its connection for ever.
    const outcome = await Promise.race([running.stop().then(() => 'stopped'), new Promise((resolve) => setTimeout(resolve, 30_000, 'still waiting'))]);
    expect(outcome).toBe('stopped');
    await stalled.readToEnd();
  });
});
