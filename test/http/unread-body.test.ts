// A refused body is not drained: over a raw socket, a client that keeps sending a body past the limit (or one
// refused before it is read) gets its answer with Connection: close, then the end of the stream from the server
// long before it has sent everything. A body read to its end keeps the connection alive.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEvent, seedWorkspace, startTestServer, testAdminToken, type TestServer } from '../_setup.ts';

const oneMiB = 1024 * 1024;
/** What the client would send in all: far more than the kernel's socket buffers hold. */
const hugeBytes = 64 * oneMiB;
const chunk = Buffer.alloc(64 * 1024, 'x');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await seedWorkspace(server, 'drain', { sites: ['drained'] });
});
afterAll(() => server.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw HTTP/1.1 connection: what arrived, and whether the server ended it. */
function open(): { socket: Socket; received: () => Buffer; ended: Promise<void>; isEnded: () => boolean } {
  const { port } = new URL(server.url);
  const socket = connect(Number(port), '127.0.0.1');
  const chunks: Buffer[] = [];
  let ended = false;
  socket.on('data', (data: Buffer) => chunks.push(data));
  // Writes after the server has gone may fail: what is asserted is what was received.
  socket.on('error', () => undefined);
  const endedPromise = new Promise<void>((resolve) => {
    socket.once('end', () => {
      ended = true;
      resolve();
    });
    socket.once('close', () => resolve());
  });
  return { socket, received: () => Buffer.concat(chunks), ended: endedPromise, isEnded: () => ended };
}

/** The first answer in `bytes` from `from` (status line, headers, a sized or chunked body), or undefined while incomplete. */
function parseAnswer(bytes: Buffer, from = 0): (RawAnswer & { next: number }) | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n', from);
  if (headEnd < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(from, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine!.split(' ')[1]);
  let at = headEnd + 4;
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    for (;;) {
      const sizeEnd = bytes.indexOf('\r\n', at);
      if (sizeEnd < 0) return undefined;
      const size = parseInt(bytes.subarray(at, sizeEnd).toString('latin1'), 16);
      if (bytes.length < sizeEnd + 2 + size + 2) return undefined;
      parts.push(bytes.subarray(sizeEnd + 2, sizeEnd + 2 + size));
      at = sizeEnd + 2 + size + 2;
      if (size === 0) return { status, headers, body: Buffer.concat(parts).toString('utf8'), next: at };
    }
  }
  const length = Number(headers['content-length'] ?? 0);
  if (bytes.length < at + length) return undefined;
  return { status, headers, body: bytes.subarray(at, at + length).toString('utf8'), next: at + length };
}

/**
 * Sends `head` then body bytes in 64 KiB chunks (chunked framing when `chunked`), one at a time, waiting for the
 * socket to drain, until `hugeBytes` are sent or the server ends the connection. Returns what was sent and the answer.
 */
async function sendUntilEnded(head: string, chunked: boolean): Promise<{ sent: number; ended: boolean; answer: RawAnswer | undefined }> {
  const connection = open();
  connection.socket.write(head);
  let sent = 0;
  while (!connection.isEnded() && !connection.socket.destroyed && sent < hugeBytes) {
    const framed = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
    const flushed = connection.socket.write(framed);
    sent += chunk.length;
    await new Promise<void>((resolve) => {
      if (flushed) return setImmediate(resolve);
      // A server that reads nothing more never drains the socket: its end of stream settles the wait.
      connection.socket.once('drain', resolve);
      void connection.ended.then(resolve);
    });
  }
  const ended = connection.isEnded();
  connection.socket.destroy();
  return { sent, ended, answer: parseAnswer(connection.received()) };
}

function requestHead(method: string, path: string, headers: Record<string, string>): string {
  return `${method} ${path} HTTP/1.1\r\nHost: sightline.test\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
}

const cases = [
  { name: 'POST /events (fast path) declaring 64 MiB', path: '/events', token: 'drained', chunked: false, status: 413, code: 'payload_too_large' },
  { name: 'POST /events (fast path) streaming past 1 MiB without a length', path: '/events', token: 'drained', chunked: true, status: 413, code: 'payload_too_large' },
  { name: 'POST /s2s/events (fast path) refused before reading: wrong bearer', path: '/s2s/events', token: 'nope', chunked: false, status: 401, code: 'unauthorized' },
  { name: 'POST /workspaces (h3) declaring 64 MiB', path: '/workspaces', token: testAdminToken, chunked: false, status: 413, code: 'payload_too_large' },
  { name: 'POST /workspaces (h3) streaming past 1 MiB without a length', path: '/workspaces', token: testAdminToken, chunked: true, status: 413, code: 'payload_too_large' },
  { name: 'POST /nowhere (an unknown route) declaring 64 MiB', path: '/nowhere', token: testAdminToken, chunked: false, status: 404, code: 'not_found' },
];

describe('a body left unread', () => {
  it.each(cases)('$name: answered with Connection: close, then the server ends the connection', async ({ path, token, chunked, status, code }) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (chunked) headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = String(hugeBytes);
    const { sent, ended, answer } = await sendUntilEnded(requestHead('POST', path, headers), chunked);
    expect(answer?.status).toBe(status);
    expect(answer?.headers.connection).toBe('close');
    const body = JSON.parse(answer!.body);
    expect(body.error?.code ?? body.error).toBe(code);
    // The server stopped reading: the client could not send the whole body before the end of the stream.
    expect(ended).toBe(true);
    expect(sent).toBeLessThan(hugeBytes);
    // And it still answers.
    expect((await server.request('GET', '/healthz', { token: null })).status).toBe(200);
  });

  it('a body read to its end keeps the connection alive, refused or not, up to exactly 1 MiB', async () => {
    const event = makeEvent('drained', { props: { blob: '' } });
    const base = JSON.stringify(event).length;
    (event.props as { blob: string }).blob = 'x'.repeat(oneMiB - base);
    const atLimit = JSON.stringify(event);
    expect(Buffer.byteLength(atLimit)).toBe(oneMiB);
    const bodies = [atLimit, '{"id":'];
    const connection = open();
    for (const body of bodies) {
      connection.socket.write(requestHead('POST', '/events', { authorization: 'Bearer drained', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) + body);
    }
    // Both answers arrive on the one connection, in order, and neither closes it.
    let answers: RawAnswer[] = [];
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        answers = [];
        let at = 0;
        for (let parsed = parseAnswer(connection.received()); parsed; parsed = parseAnswer(connection.received(), at)) {
          answers.push(parsed);
          at = parsed.next;
        }
        if (answers.length === bodies.length) resolve();
      };
      connection.socket.on('data', check);
      void connection.ended.then(() => reject(new Error(`the server ended the connection: ${connection.received().toString('latin1').slice(0, 500)}`)));
    });
    expect(answers.map((answer) => [answer.status, answer.headers.connection])).toEqual([
      [202, 'keep-alive'],
      [400, 'keep-alive'],
    ]);
    expect(connection.isEnded()).toBe(false);
    connection.socket.destroy();
  });

  it('one byte over the limit is refused with 413 and Connection: close', async () => {
    const body = 'x'.repeat(oneMiB + 1);
    const connection = open();
    connection.socket.write(requestHead('POST', '/events', { authorization: 'Bearer drained', 'content-type': 'application/json', 'content-length': String(oneMiB + 1) }));
    connection.socket.write(body);
    await connection.ended;
    const answer = parseAnswer(connection.received());
    expect([answer?.status, answer?.headers.connection]).toEqual([413, 'close']);
    connection.socket.destroy();
  });
});
