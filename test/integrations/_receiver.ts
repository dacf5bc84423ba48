// A scripted local webhook receiver: answers each request with the next scripted reply (the last one repeats) and
// keeps what it received. Not a test file itself.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Never answer (a timeout). */
  hang?: boolean;
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The most requests it held open at once. */
  maxOpen(): number;
  /** Replaces the script from the next request on: replies in order, the last one repeating. */
  script(...replies: Reply[]): void;
  close(): Promise<void>;
}

/** @example const receiver = await startReceiver({ status: 204 }); */
export async function startReceiver(...replies: Reply[]): Promise<Receiver> {
  let script = replies.length > 0 ? replies : [{ status: 204 }];
  /** Requests received before the current script was set: its first reply answers the next one. */
  let scriptStart = 0;
  const received: Received[] = [];
  let open = 0;
  let maxOpen = 0;
  const server: Server = createServer((request, response) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    response.on('close', () => open--);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = script[Math.min(received.length - 1 - scriptStart, script.length - 1)]!;
      if (reply.hang) return;
      response.writeHead(reply.status, reply.headers);
      response.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    maxOpen: () => maxOpen,
    script: (...next) => {
      script = next;
      scriptStart = received.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The payload of a received delivery, verified by the independent standardwebhooks package (throws when the
 * signature does not match). Its 5-minute tolerance is checked against the real clock, so `nowSeconds` is the
 * timestamp the server's clock gave; pass it to verify with that clock's time.
 */
export function verifyDelivery(secret: string, delivery: Received, nowSeconds?: number): Record<string, unknown> {
  const webhook = new Webhook(secret);
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  };
  if (nowSeconds === undefined) return webhook.verify(delivery.body, headers) as Record<string, unknown>;
  const realNow = Date.now;
  Date.now = () => nowSeconds * 1000;
  try {
    return webhook.verify(delivery.body, headers) as Record<string, unknown>;
  } finally {
    Date.now = realNow;
  }
}
