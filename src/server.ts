// Starts the HTTP server on the configured address, prints the ready line, and drains on SIGTERM/SIGINT.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { consola } from 'consola';
import { join } from 'node:path';
import { createApp, type SightlineApp } from './app.ts';
import { cryptoRandom } from './clock.ts';
import type { Config } from './config.ts';
import { openDatabase, type Db } from './db/open.ts';
import { resolveAdminToken } from './admin/admin-token.ts';
import { closeEventStreams } from './events/stream-hub.ts';

export interface RunningServer {
  url: string;
  app: SightlineApp;
  db: Db;
  /** The Node server: its timeouts and connection cap are the configuration's `http`. */
  http: Server;
  /** Stops accepting, lets in-flight requests finish, flushes the ingest queue and closes the database. */
  stop(): Promise<void>;
}

/**
 * A Node HTTP server around the app, bounded by the configuration's `http` (docs/deploy.md, "Connection limits"):
 * a connection that sends no request headers within the headers timeout, or not its whole request within the request
 * timeout, is answered 408 and closed; an idle keep-alive connection is closed after the keep-alive timeout; past
 * maxConnections a new connection is closed at once, unanswered. The request timeout ends once the request has been
 * read, so a response still being sent (a stream-v2 tail, hours long) is never cut by it.
 */
export function createHttpServer(app: SightlineApp): Server {
  const { http } = app.context.config;
  const server = createServer(
    {
      headersTimeout: http.headersTimeoutMs,
      requestTimeout: http.requestTimeoutMs,
      keepAliveTimeout: http.keepAliveTimeoutMs,
      // Node checks both timeouts on this timer (30 s by default, which would let a silent socket stay 30 s past
      // its timeout): a check is a walk over the connections still reading a request, cheap at any interval.
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(http.headersTimeoutMs / 4))),
    },
    app.nodeListener,
  );
  server.maxConnections = http.maxConnections;
  // Every open connection, with the request it is handling (undefined before its first request and between two).
  const connections = new Map<Socket, IncomingMessage | undefined>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, undefined);
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    connections.set(socket, request);
    // A response may close after its socket: a closed socket is not put back.
    response.once('close', () => {
      if (connections.get(socket) === request) connections.set(socket, undefined);
    });
  });
  drainers.set(server, () => drain(server, connections, http.requestTimeoutMs));
  const registry = app.metrics.registry;
  registry.gauge('sightline_http_connections_open', 'Open HTTP connections (stream-v2 ones included)', () => connections.size);
  const dropped = registry.counter('sightline_http_connections_dropped_total', 'Connections closed unanswered because HTTP_MAX_CONNECTIONS were open');
  server.on('drop', () => dropped.inc());
  return server;
}

const drainers = new WeakMap<Server, () => void>();

/**
 * Stops a server made by createHttpServer from taking connections and closes the ones it need not wait for; its
 * close() callback runs once the requests in flight are answered. Node stops checking its timeouts once the server
 * is closing, so nothing else would ever close a connection that has not sent a request (a silent socket, one that
 * drips its headers, a client's spare connection), or one whose body stops arriving: close() would wait for ever.
 * @example drainHttpServer(server, () => console.log('every connection is closed'));
 */
export function drainHttpServer(server: Server, closed: () => void): void {
  // A request still in flight leaves its connection idle once answered: closed at once, not after the keep-alive
  // timeout (125 s by default, which would keep a stop, and a supervisor's stop timeout, waiting). 0 means none.
  server.keepAliveTimeout = 1;
  server.close(() => closed());
  drainers.get(server)?.();
}

function drain(server: Server, connections: Map<Socket, IncomingMessage | undefined>, requestTimeoutMs: number): void {
  server.closeIdleConnections();
  for (const [socket, request] of connections) if (!request) socket.destroy();
  // What the request timeout would have cut: a request whose body has still not arrived.
  const late = setTimeout(() => {
    for (const [socket, request] of connections) if (request && !request.complete) socket.destroy();
  }, requestTimeoutMs);
  late.unref();
  server.once('close', () => clearTimeout(late));
}

export function databasePath(dataDir: string): string {
  return join(dataDir, 'sightline.db');
}

export async function startServer(config: Config): Promise<RunningServer> {
  const db = openDatabase(databasePath(config.dataDir), { logCacheMiB: 8 });
  const adminToken = resolveAdminToken(config, cryptoRandom);
  const app = createApp({ db, config, adminToken: adminToken.token, checkpoint: 'projector-thread' });
  const server = createHttpServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await new Promise<void>((resolve) => {
        drainHttpServer(server, resolve);
        // An event stream never finishes by itself: end them, or close() would wait forever.
        closeEventStreams(app.context);
      });
      await app.close();
      db.close();
    })();
    return stopping;
  };

  printLine(`Sightline listening on ${url}`);
  printLine(`Admin UI: ${url}/`);
  if (adminToken.generated) {
    printLine(`Admin token (saved to ${adminToken.path}, shown only this once): ${adminToken.token}`);
  }
  return { url, app, db, http: server, stop };
}

/**
 * Straight to stdout, not through consola: consola drops log/info lines when NODE_ENV=test or TEST is set, and the
 * ready line and the once-only admin token must be printed whatever the environment.
 */
function printLine(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * For `sightline serve`: SIGTERM and SIGINT drain and exit 0. Install it before the server starts (pass the pending
 * start): the ready line is printed inside startServer, and a supervisor may signal the moment it reads that line;
 * a signal that arrived before the handlers were installed would kill the process without draining.
 */
export function stopOnSignals(running: RunningServer | Promise<RunningServer>): void {
  const onSignal = (signal: NodeJS.Signals) => {
    printLine(`${signal} received, draining`);
    Promise.resolve(running)
      .then((server) => server.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          consola.error(error);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
