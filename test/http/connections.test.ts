// The HTTP server's own bounds, on the real server as `sightline serve` starts it (src/server.ts, port 0): a socket that
// sends nothing, or only part of its headers, or not its whole body, gets 408 and is closed after the configured
// timeout; a stream-v2 response is not cut by the request timeout however long it lasts; an idle keep-alive connection
// is closed, and a stopping server does not wait for it; and past HTTP_MAX_CONNECTIONS a new connection is closed
// unanswered while those under it (/healthz among many silent sockets) are served, and closing one frees its slot. No timing decides: each test waits for the close
// (or the answer) itself, with a generous bound that only turns a hang into a failure.
import { Agent, get, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { makeTempDir, testAdminToken } from '../_setup.ts';
import { poll, SseClient, wireEvent } from '../events/_helpers.ts';

/** Far longer than any bound configured below: what these tests wait for comes long before, or not at all. */
const generousMs = 15_000;

async function start(env: Record<string, string>, dataDir = makeTempDir()): Promise<RunningServer> {
  return startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN: testAdminToken, ...env }));
}

/**
 * A server with tight timeouts over a site made beforehand under the defaults: a 300 ms headers timeout could
 * otherwise cut the set-up's own requests on a loaded machine, before the step under test.
 */
async function startWithSite(env: Record<string, string>, id: string): Promise<RunningServer> {
  const dataDir = makeTempDir();
  const setup = await start({}, dataDir);
  await createSite(setup, id);
  await setup.stop();
  return start(env, dataDir);
}

interface RawConnection {
  socket: Socket;
  /** Everything the server sent on it. */
  received(): string;
  /** Resolves when the connection is closed (by either side), with what the server sent. */
  closed: Promise<string>;
}

/** A raw TCP connection to the server that sends `text` (nothing for a silent one) and reads whatever comes back. */
async function rawConnection(server: RunningServer, text = ''): Promise<RawConnection> {
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (received += chunk));
  // A connection the server resets (the cap, a timeout) may report it as an error: what counts is what arrived.
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  if (text) socket.write(text);
  return { socket, received: () => received, closed };
}

/** Resolves with `promise`, or fails once `generousMs` has passed (a connection the server never closes). */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${generousMs} ms`)), generousMs);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** GET over `agent` (a fresh connection without one): the answer, or the error of a connection closed unanswered. */
function httpGet(server: RunningServer, path: string, agent?: Agent): Promise<{ status: number; text: string; reused: boolean } | { error: string }> {
  return new Promise((resolve) => {
    const request = get(`${server.url}${path}`, { agent: agent ?? false, headers: { authorization: `Bearer ${testAdminToken}` } }, (response: IncomingMessage) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text, reused: request.reusedSocket }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

/** A workspace named after the site, and the site, through the API. */
async function createSite(server: RunningServer, id: string): Promise<void> {
  const admin = { authorization: `Bearer ${testAdminToken}`, 'content-type': 'application/json' };
  const workspace = await fetch(`${server.url}/workspaces`, { method: 'POST', headers: admin, body: JSON.stringify({ name: id, slug: id }) });
  expect(workspace.status).toBe(201);
  const site = await fetch(`${server.url}/workspaces/${id}/sites`, { method: 'POST', headers: admin, body: JSON.stringify({ id, name: id }) });
  expect(site.status).toBe(201);
}

/** One series of GET /metrics as printed, read over `agent`. */
async function metricOver(server: RunningServer, series: string, agent?: Agent): Promise<number> {
  const answer = await httpGet(server, '/metrics', agent);
  if (!('status' in answer)) throw new Error(`GET /metrics: ${answer.error}`);
  const line = answer.text.split('\n').find((text) => text.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('the HTTP configuration', () => {
  it('defaults to 10 s for headers, 60 s for a whole request, 125 s of keep-alive and 2,048 connections', async () => {
    expect(loadConfig({}).http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 125_000, maxConnections: 2048 });
    const server = await start({ HTTP_HEADERS_TIMEOUT_MS: '1500', HTTP_REQUEST_TIMEOUT_MS: '2500', HTTP_KEEP_ALIVE_TIMEOUT_MS: '3500', HTTP_MAX_CONNECTIONS: '450' });
    try {
      const { headersTimeout, requestTimeout, keepAliveTimeout, maxConnections } = server.http;
      expect({ headersTimeout, requestTimeout, keepAliveTimeout, maxConnections }).toEqual({ headersTimeout: 1500, requestTimeout: 2500, keepAliveTimeout: 3500, maxConnections: 450 });
    } finally {
      await server.stop();
    }
  });

  it.each([
    [{ HTTP_HEADERS_TIMEOUT_MS: '2001', HTTP_REQUEST_TIMEOUT_MS: '2000' }, 'HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS'],
    [{ HTTP_MAX_CONNECTIONS: '200' }, 'HTTP_MAX_CONNECTIONS: must be greater than EVENT_STREAMS_TOTAL'],
    [{ HTTP_MAX_CONNECTIONS: '0' }, 'HTTP_MAX_CONNECTIONS'],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: '9' }, 'HTTP_KEEP_ALIVE_TIMEOUT_MS'],
    [{ HTTP_REQUEST_TIMEOUT_MS: 'soon' }, 'HTTP_REQUEST_TIMEOUT_MS: must be a whole number'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    // The edges accepted: headers equal to the request timeout; one connection more than the streams.
    { HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '2000' },
    { HTTP_MAX_CONNECTIONS: '201' },
    { HTTP_KEEP_ALIVE_TIMEOUT_MS: '10' },
  ])('accepts %j', (env) => {
    expect(() => loadConfig(env)).not.toThrow();
  });
});

describe('the timeouts', () => {
  let server: RunningServer;
  const connections: RawConnection[] = [];
  const open = async (text = '') => {
    const connection = await rawConnection(server, text);
    connections.push(connection);
    return connection;
  };

  beforeAll(async () => {
    server = await startWithSite({ HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '300', HTTP_KEEP_ALIVE_TIMEOUT_MS: '300' }, 'tail');
  });
  afterAll(async () => {
    for (const connection of connections) connection.socket.destroy();
    await server.stop();
  });

  it.each([
    ['sends nothing at all', ''],
    ['sends half of its headers (slowloris)', 'GET /healthz HTTP/1.1\r\nHost: example\r\nX-Slow: '],
    ['sends its headers but not the body they announce', 'POST /s2s/events HTTP/1.1\r\nHost: example\r\nAuthorization: Bearer tail\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[{'],
  ])('answers 408 to a connection that %s, and closes it', async (_name, text) => {
    const connection = await open(text);
    const received = await within(connection.closed, 'the server closing the connection');
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('does not cut a stream-v2 response with the request timeout, however long it stays open', async () => {
    const attempt = await SseClient.open(server, '/sites/tail/events/stream-v2');
    expect(attempt.status).toBe(200);
    const stream = attempt.client!;
    try {
      expect((await stream.next()).event).toBe('cursor');
      // A silent socket opened after the stream is closed by the timeout check: the stream's request began before,
      // so that same check found it past its request deadline too, had it still counted as reading a request.
      const silent = await open();
      expect(await within(silent.closed, 'the silent socket closing')).toMatch(/^HTTP\/1\.1 408 /);
      const event = wireEvent('tail');
      const posted = await fetch(`${server.url}/s2s/events`, { method: 'POST', headers: { authorization: 'Bearer tail', 'content-type': 'application/json' }, body: JSON.stringify([event]) });
      expect(posted.status).toBe(202);
      const [delivered] = await stream.events(1);
      expect(delivered!.event.id).toBe(event.id);
      expect(stream.ended).toBe(false);
    } finally {
      stream.close();
    }
  });

  it('closes an idle keep-alive connection after its request was answered', async () => {
    const connection = await open('GET /healthz HTTP/1.1\r\nHost: example\r\n\r\n');
    const received = await within(connection.closed, 'the idle keep-alive connection closing');
    // One answer, then the end of the connection: no 408, the request had been served.
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).not.toContain('408');
  });
});

describe('a stopping server', () => {
  it('answers a request in flight, then closes its keep-alive connection instead of waiting for the keep-alive timeout', async () => {
    // The default keep-alive timeout (125 s) is far longer than the bound: waiting for it would fail the test.
    const server = await start({});
    await createSite(server, 'late');
    const body = JSON.stringify([wireEvent('late')]);
    const half = Math.floor(body.length / 2);
    // In flight: headers and half of the body sent when the server is told to stop (SIGTERM does the same).
    const connection = await rawConnection(
      server,
      `POST /s2s/events HTTP/1.1\r\nHost: example\r\nAuthorization: Bearer late\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
    );
    // A connection made after it is answered: the server accepts connections in the order they arrived, so it holds
    // this one too (one still in the listen queue would be reset by the stop instead).
    expect(await httpGet(server, '/healthz')).toMatchObject({ status: 200 });
    const stopped = server.stop();
    connection.socket.write(body.slice(half));
    // Answered (accepted, with keep-alive), then closed by the server; and the stop completes.
    const received = await within(connection.closed, 'the answered connection closing');
    expect(received).toMatch(/^HTTP\/1\.1 202 /);
    await within(stopped, 'the server stopping');
  });

  it('closes the connections that have not sent a request (Node stops its own timeout checks once closing)', async () => {
    // Default timeouts: nothing but the stop itself may close these before the bound.
    const server = await start({});
    const silent = await rawConnection(server);
    const dripping = await rawConnection(server, 'GET /healthz HTTP/1.1\r\nHost: example\r\nX-Slow: ');
    // Connections made after them are answered: the server holds them (see above).
    expect(await httpGet(server, '/healthz')).toMatchObject({ status: 200 });
    const stopped = server.stop();
    // Closed unanswered: no request of theirs was ever taken.
    expect(await within(silent.closed, 'the silent connection closing')).toBe('');
    expect(await within(dripping.closed, 'the dripping connection closing')).toBe('');
    await within(stopped, 'the server stopping');
  });

  it('cuts a request whose body stops arriving once the request timeout has passed, as it would have without the stop', async () => {
    // Stopped long before the 2 s have passed: without the stop, Node would cut it with a 408 at 2 s.
    const server = await startWithSite({ HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '2000' }, 'stalled');
    // A site's own bearer: the collector reads the body (an unknown one would be refused before it, and closed).
    const stalled = await rawConnection(server, 'POST /s2s/events HTTP/1.1\r\nHost: example\r\nAuthorization: Bearer stalled\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[{');
    expect(await httpGet(server, '/healthz')).toMatchObject({ status: 200 });
    const stopped = server.stop();
    await within(stalled.closed, 'the stalled request closing');
    await within(stopped, 'the server stopping');
  });
});

describe('the connection cap', () => {
  const cap = 40;
  let server: RunningServer;
  const silent: RawConnection[] = [];
  let keeper: Agent;

  beforeAll(async () => {
    // Timeouts far beyond the test: the silent sockets stay open until the test closes them.
    server = await start({
      HTTP_MAX_CONNECTIONS: String(cap),
      EVENT_STREAMS_TOTAL: '5',
      HTTP_HEADERS_TIMEOUT_MS: '600000',
      HTTP_REQUEST_TIMEOUT_MS: '600000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '600000',
    });
    // One connection, kept alive and reused for every request of the test that goes over it.
    keeper = new Agent({ keepAlive: true, maxSockets: 1 });
  });
  afterAll(async () => {
    keeper.destroy();
    for (const connection of silent) connection.socket.destroy();
    await server.stop();
  });

  it('serves connections up to the cap among many silent ones, closes the next one unanswered, and frees a closed slot', async () => {
    for (let count = 0; count < cap - 1; count++) silent.push(await rawConnection(server));
    // The last connection accepted: /metrics over it counts every silent socket and itself.
    const openConnections = await poll(async () => {
      const count = await metricOver(server, 'sightline_http_connections_open', keeper);
      return count === cap ? count : undefined;
    }, generousMs);
    expect(openConnections).toBe(cap);
    // /healthz answers on it while the server holds 39 silent sockets.
    const health = await httpGet(server, '/healthz', keeper);
    expect(health).toMatchObject({ status: 200, reused: true });

    // The first connection past the cap: closed without an answer.
    const refused = await rawConnection(server, 'GET /healthz HTTP/1.1\r\nHost: example\r\n\r\n');
    expect(await within(refused.closed, 'the connection past the cap closing')).toBe('');
    expect(await httpGet(server, '/healthz')).toEqual({ error: expect.any(String) });
    expect(await metricOver(server, 'sightline_http_connections_dropped_total', keeper)).toBe(2);
    // The silent sockets are still open: the cap refused the newcomers, not them.
    expect(await metricOver(server, 'sightline_http_connections_open', keeper)).toBe(cap);

    // One silent socket leaves: a new connection is served again (once the server has seen it close).
    silent.pop()!.socket.destroy();
    const served = await poll(async () => {
      const answer = await httpGet(server, '/healthz');
      return 'status' in answer ? answer : undefined;
    }, generousMs);
    expect(served).toMatchObject({ status: 200, reused: false });
  });
});
