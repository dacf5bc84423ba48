// Sends one signed delivery: a POST with a bounded total time, never following a redirect, reading at most 1 KiB of
// the answer (decoded as well-formed UTF-8) and connecting only where the SSRF guard allows (address-guard.ts).
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, isRefusedAddress, isRefusedLiteralHost, RefusedAddressError } from './address-guard.ts';

export const responseExcerptBytes = 1024;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Connect, send, and the answer's status line and excerpt, all within this. */
  timeoutMs: number;
  /** ALLOW_PRIVATE_WEBHOOK_TARGETS: no address is refused. */
  allowPrivate: boolean;
}

export type WebhookResponse =
  | { kind: 'answered'; statusCode: number; retryAfter: string | undefined; excerpt: string }
  | {
      kind: 'failed';
      reason: 'timeout' | 'network_error' | 'address_refused' | 'secret_unavailable';
      /** What went wrong, addresses and DNS error codes included: for the server's log (public-failure.ts says what the history shows). */
      detail: string;
    };

/** How deliveries are sent: passed in (STYLE rule 11), node:http by default. */
export type SendWebhook = (request: WebhookRequest) => Promise<WebhookResponse>;

class DeliveryTimeout extends Error {}

/**
 * @example const response = await sendWebhook({ url, headers, body, timeoutMs: 10_000, allowPrivate: false });
 */
export const sendWebhook: SendWebhook = (request) =>
  new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (response: WebhookResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(response);
    };
    const fail = (error: unknown) => {
      if (error instanceof DeliveryTimeout) return finish({ kind: 'failed', reason: 'timeout', detail: `no answer within ${request.timeoutMs} ms` });
      if (error instanceof RefusedAddressError) return finish({ kind: 'failed', reason: 'address_refused', detail: error.message });
      finish({ kind: 'failed', reason: 'network_error', detail: error instanceof Error ? error.message : String(error) });
    };
    const url = new URL(request.url);
    // An IP literal (the URL parser has turned 2130706433, 0x7f.1 and 017700000001 into 127.0.0.1) is connected to
    // without a lookup: check it here.
    const host = url.hostname;
    if (!request.allowPrivate && isRefusedLiteralHost(host)) return fail(new RefusedAddressError(host, host));
    const client = url.protocol === 'https:' ? https : http;
    const outgoing = client.request(url, {
      method: 'POST',
      agent: false,
      headers: { ...request.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(request.body), 'user-agent': 'Sightline-Webhooks/1' },
      ...(request.allowPrivate ? {} : { lookup: guardedLookup() }),
    });
    timer = setTimeout(() => outgoing.destroy(new DeliveryTimeout()), request.timeoutMs);
    outgoing.on('error', fail);
    outgoing.on('socket', (socket) => {
      // The address the socket connected to, checked once more (an IP literal, or whatever the lookup gave).
      socket.once('connect', () => {
        const remote = socket.remoteAddress;
        if (!request.allowPrivate && (remote === undefined || isRefusedAddress(remote))) outgoing.destroy(new RefusedAddressError(host, remote ?? '(unknown)'));
      });
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      let length = 0;
      const done = () => {
        const bytes = Buffer.concat(chunks).subarray(0, responseExcerptBytes);
        // stream: true holds back a character cut at the 1 KiB edge instead of decoding half of it.
        const excerpt = new TextDecoder('utf-8').decode(bytes, { stream: true });
        const retryAfter = response.headers['retry-after'];
        finish({ kind: 'answered', statusCode: response.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, excerpt });
        response.destroy();
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        length += chunk.length;
        if (length >= responseExcerptBytes) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    outgoing.end(request.body);
  });
