// Shared pieces of the Events v2 tests: posting events through the real collector, a small Server-Sent Events
// client over fetch, and polling without fixed sleeps. Not a test file itself (vitest only collects *.test.ts).
import { expect } from 'vitest';
import { makeEvent, testAdminToken, type TestServer } from '../_setup.ts';
import { Wakeup } from '../_wakeup.ts';

export const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
export const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

/** A wire event for s2s ingest (its context.user_agent is honoured there), with `overrides` merged in. */
export function wireEvent(siteId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return makeEvent(siteId, { context: { user_agent: chrome }, ...overrides });
}

/** Posts events through POST /s2s/events with the site bearer and expects them all stored; returns them. */
export async function send(server: TestServer, siteId: string, events: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  for (let offset = 0; offset < events.length; offset += 500) {
    const batch = events.slice(offset, offset + 500);
    const response = await server.request('POST', '/s2s/events', { token: siteId, body: batch });
    expect(response.status, response.text).toBe(202);
    expect(response.body.accepted).toBe(batch.length);
  }
  return events;
}

/** Retries `attempt` until it returns a value other than undefined (no fixed sleeps decide anything). */
export async function poll<T>(attempt: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await attempt();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error('poll: timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface SseFrame {
  event?: string;
  id?: string;
  data?: string;
  /** The text of a comment line (`: heartbeat` → 'heartbeat'). */
  comment?: string;
}

function parseFrame(block: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    else {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event' || field === 'id') frame[field] = value;
      else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
    }
  }
  return frame;
}

/** A Server-Sent Events connection read frame by frame. */
export class SseClient {
  private readonly frames: SseFrame[] = [];
  private readonly arrivals = new Wakeup();
  private buffer = '';
  ended = false;

  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    void this.read();
  }

  /** Opens `path` (admin token unless `token` says otherwise); a refusal is returned as status and JSON body. */
  /** A server started by `startTestServer` has its answers checked; a bare `{ url }` (another kind of server) not. */
  static async open(
    server: Pick<TestServer, 'url'> & Partial<Pick<TestServer, 'answers'>>,
    path: string,
    options: { token?: string; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; headers: Headers; client?: SseClient; body?: any }> {
    const abort = new AbortController();
    const response = await fetch(server.url + path, {
      headers: { authorization: `Bearer ${options.token ?? testAdminToken}`, accept: 'text/event-stream', ...options.headers },
      signal: abort.signal,
    });
    const contentType = response.headers.get('content-type');
    if (response.status !== 200) {
      // Refusals are checked against the published document like every other answer of the suite.
      const text = await response.text();
      server.answers?.check({ method: 'GET', path, status: response.status, contentType, text });
      return { status: response.status, headers: response.headers, body: JSON.parse(text) };
    }
    server.answers?.check({ method: 'GET', path, status: 200, contentType, text: '' });
    return { status: 200, headers: response.headers, client: new SseClient(response, abort) };
  }

  private async read(): Promise<void> {
    const reader = this.response.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          this.frames.push(parseFrame(this.buffer.slice(0, end)));
          this.buffer = this.buffer.slice(end + 2);
        }
        this.arrivals.notify();
      }
    } catch {
      // aborted by close()
    }
    this.ended = true;
    this.arrivals.notify();
  }

  /** The next frame (heartbeats skipped unless asked for); fails after `timeoutMs` or when the stream ends. */
  async next(options: { heartbeats?: boolean; timeoutMs?: number } = {}): Promise<SseFrame> {
    const deadline = Date.now() + (options.timeoutMs ?? 5_000);
    for (;;) {
      while (this.frames.length > 0) {
        const frame = this.frames.shift()!;
        if (frame.comment === undefined || options.heartbeats) return frame;
      }
      if (this.ended) throw new Error('the stream ended');
      if (Date.now() >= deadline) throw new Error('no frame in time');
      await this.arrivals.sleepUntil(deadline);
    }
  }

  /** The next `count` event frames, as { cursor, event }. */
  async events(count: number): Promise<{ cursor: string; event: Record<string, any> }[]> {
    const received: { cursor: string; event: Record<string, any> }[] = [];
    while (received.length < count) {
      const frame = await this.next();
      expect(frame.event).toBe('event');
      received.push({ cursor: frame.id!, event: JSON.parse(frame.data!) });
    }
    return received;
  }

  /** Resolves when the server has ended the response. */
  async waitForEnd(timeoutMs = 5_000): Promise<void> {
    await poll(async () => (this.ended ? true : undefined), timeoutMs);
  }

  close(): void {
    this.abort.abort();
  }
}
