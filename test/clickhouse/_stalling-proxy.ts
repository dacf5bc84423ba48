// A TCP proxy in front of a clickhouse-server that can hold an insert half-way: armed, it forwards the first bytes of
// the next request whose query is an INSERT into events (its head and the start of its rows) and holds the rest, so
// ClickHouse is known to be inside that insert, waiting for rows, when the test kills it. No timing decides where
// the crash lands. Disarmed, it passes everything through.
import { createServer, connect, type Socket } from 'node:net';

export interface StallingProxy {
  url: string;
  /** Holds the next events insert after `bytes` of it have passed; resolves once it holds one. */
  stallNextEventsInsert(bytes: number): Promise<void>;
  /** Ends every connection (the held insert fails on the client's side) and passes everything through again. */
  release(): void;
  close(): Promise<void>;
}

// The query travels URL-encoded in the request line: INSERT INTO `events…` (events or events_local).
const eventsInsert = 'query=INSERT+INTO+%60events';

export async function startStallingProxy(target: { host: string; port: number }): Promise<StallingProxy> {
  const sockets = new Set<Socket>();
  let armed: { bytes: number; held: () => void } | undefined;
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    let stalledAfter: number | undefined;
    let passed = 0;
    client.on('data', (chunk: Buffer) => {
      if (stalledAfter === undefined && armed && chunk.includes(eventsInsert)) {
        stalledAfter = armed.bytes;
        const held = armed.held;
        armed = undefined;
        setImmediate(held);
      }
      if (stalledAfter === undefined) {
        upstream.write(chunk);
        return;
      }
      const room = stalledAfter - passed;
      if (room > 0) upstream.write(chunk.subarray(0, room));
      passed += Math.min(room > 0 ? room : 0, chunk.length);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    stallNextEventsInsert: (bytes) => new Promise<void>((held) => (armed = { bytes, held })),
    release() {
      armed = undefined;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
