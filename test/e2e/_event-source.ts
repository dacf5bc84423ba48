// An EventSource of the `eventsource` package (an independent client following the WHATWG spec: its own parser, its
// own reconnection with Last-Event-ID) whose messages are queued and awaited one at a time. Every wait is bounded,
// so a message that never comes fails the test with what was awaited, not a test timeout. Not a test file itself.
import { EventSource, type FetchLike } from 'eventsource';
import { Wakeup } from '../_wakeup.ts';

export interface ReceivedMessage {
  /** The SSE `event:` field (the listener it came through). */
  type: string;
  data: string;
  /** The MessageEvent's lastEventId: the SSE `id:` of an event frame, what the client resumes from. */
  lastEventId: string;
}

/** Generous: the bundled server and its clients share a machine with the rest of the suite. Never an outcome. */
const defaultWaitMs = 15_000;

export class QueuedEventSource {
  private readonly source: EventSource;
  private readonly queue: ReceivedMessage[] = [];
  private readonly arrivals = new Wakeup();
  /** Why the connection failed for good (a refusal, a wrong content type): the client will not reconnect. */
  private failure: string | undefined;
  /** Times the stream ended or broke and the client scheduled a reconnect, as the spec asks. */
  reconnectsScheduled = 0;

  /**
   * Opens `url` and queues the messages of `types` (SSE `event:` names).
   * @example const stream = new QueuedEventSource(url, { types: ['cursor', 'event'], fetch }); await stream.next('the cursor frame');
   */
  constructor(url: string, options: { types: string[]; fetch: FetchLike }) {
    this.source = new EventSource(url, { fetch: options.fetch });
    for (const type of options.types) {
      this.source.addEventListener(type, (message) => {
        this.queue.push({ type, data: String(message.data), lastEventId: message.lastEventId });
        this.arrivals.notify();
      });
    }
    this.source.addEventListener('error', (error) => {
      if (this.source.readyState === EventSource.CLOSED) this.failure = `${error.code ?? 'no status'}: ${error.message ?? 'no message'}`;
      else this.reconnectsScheduled++;
      this.arrivals.notify();
    });
  }

  /** The next queued message; fails with `awaited` in the message after `timeoutMs`, or when the connection failed. */
  async next(awaited: string, timeoutMs = defaultWaitMs): Promise<ReceivedMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = this.queue.shift();
      if (message) return message;
      if (this.failure !== undefined) throw new Error(`waiting for ${awaited}: the EventSource failed (${this.failure})`);
      if (Date.now() >= deadline) throw new Error(`waiting for ${awaited}: nothing came within ${timeoutMs} ms`);
      await this.arrivals.sleepUntil(deadline);
    }
  }

  /** The next `count` messages, each of which must be of `type`. */
  async take(count: number, type: string, awaited: string): Promise<ReceivedMessage[]> {
    const messages: ReceivedMessage[] = [];
    while (messages.length < count) {
      const message = await this.next(`${awaited} (${messages.length} of ${count} so far)`);
      if (message.type !== type) throw new Error(`waiting for ${awaited}: got a "${message.type}" message: ${message.data}`);
      messages.push(message);
    }
    return messages;
  }

  close(): void {
    this.source.close();
  }
}
