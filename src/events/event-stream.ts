// GET /sites/:siteId/events/stream-v2: a Server-Sent Events tail of one site's events. The first frame is the
// cursor (sent at once); each event is `id: <cursor>`, `event: event`, `data: <list-v2 event>`; a comment line
// keeps an idle connection open. The cursor holds the last log position looked at, so a resume (cursor parameter or
// Last-Event-ID) loses and repeats nothing. New events are read from the read model after each commit, in bounded
// batches, only while the stream holds less than its buffer's bytes for the client; a client that takes nothing
// while it is full is closed.
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { AppContext } from '../context.ts';
import type { EventTail, EventTailQuestion, ListedEvent } from '../read-model/event-questions.ts';
import type { LogPosition } from '../read-model/questions.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { fingerprintOf, signCursor, verifyCursor } from '../reading/cursor.ts';
import type { StreamParams } from './event-params.ts';
import { toEventItem } from './event-item.ts';
import { type ResponseBacklog, StreamBuffer } from './stream-buffer.ts';
import type { StreamHub } from './stream-hub.ts';

const cursorKind = 'events-stream';
const batchSize = 500;
/** No event frame is smaller (its id alone is a signed cursor): reads are sized to the room with it. */
const smallestFrameBytes = 256;

/** The Node response under a stream, when Node serves it. */
export interface StreamResponse extends ResponseBacklog {
  destroy(): void;
  once(event: 'close', listener: () => void): void;
}

export interface StreamOptions {
  heartbeatMs: number;
  /** The most bytes held for the client (EVENT_STREAM_BUFFER_BYTES), plus at most one frame. */
  bufferBytes: number;
  /** Aborted when the client goes away (the request's signal). */
  signal?: AbortSignal;
  /** What it has not passed to its socket counts as held; a stalled client's connection is destroyed. */
  response?: StreamResponse;
}

const sseHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // Proxies that buffer responses (nginx) would hold frames back.
  'x-accel-buffering': 'no',
  // The connection serves this one response: when it ends (the app stopping) the socket closes with it, so a
  // server's close() is not kept waiting for an idle keep-alive connection.
  connection: 'close',
};

/**
 * What the stream's cursors are bound to: everything that selects events. The range and the dimension filters are
 * added only when given, so a stream without them keeps the fingerprint cursors had before they existed (a
 * reconnecting EventSource resumes across an upgrade).
 */
function streamFingerprint(siteId: string, params: StreamParams): string {
  const bound: unknown[] = [cursorKind, siteId, params.type, params.anonId, params.withInternal];
  if (params.range || Object.keys(params.filters).length > 0) bound.push(params.range ?? null, params.filters);
  return fingerprintOf(bound);
}

/** Where the stream starts: the resume cursor's position, else the newest stored event (a tail). Bad cursors are 400s. */
async function startPositionOf(context: AppContext, readModel: ReadModel, params: StreamParams, fingerprint: string): Promise<LogPosition> {
  if (!params.cursor) return readModel.newestPosition();
  const seq = verifyCursor(context, params.cursor.value, cursorKind, fingerprint, params.cursor.name).s;
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : 0;
}

/**
 * The frames of the events that fit in `room` bytes, oldest first: one at least, however large, so a stream always
 * moves on (the buffer holds at most one frame over), and none when there is no room at all.
 */
function framesFitting(events: ListedEvent[], room: number, cursorOf: (position: LogPosition) => string): { frames: string; sent: number } {
  let frames = '';
  let bytes = 0;
  let sent = 0;
  for (const event of events) {
    const frame = `id: ${cursorOf(event.position)}\nevent: event\ndata: ${JSON.stringify(toEventItem(event))}\n\n`;
    const size = Buffer.byteLength(frame);
    if ((sent > 0 || room <= 0) && bytes + size > room) break;
    frames += frame;
    bytes += size;
    sent++;
  }
  return { frames, sent };
}

interface EventStreamParts {
  context: AppContext;
  readModel: ReadModel;
  hub: StreamHub;
  /** What the tail selects, all but the position it reads after. */
  selection: Omit<EventTailQuestion, 'afterPosition' | 'limit'>;
  /** The site's workspace: its open streams count against the workspace's cap too. */
  workspaceId: string;
  fingerprint: string;
  startPosition: LogPosition;
  options: StreamOptions;
}

/** One open stream: its position in the log, the frames it holds for its client, its heartbeat and its end. */
class EventStream {
  private lastPosition: LogPosition;
  private readonly buffer: StreamBuffer;
  private readonly capacity: number;
  /** Left the hub: reads and sends nothing more. */
  private done = false;
  /** The response is over (or abandoned): nothing left to watch. */
  private settled = false;
  /** Events may be waiting: set by every commit and heartbeat, cleared when a read comes back short. */
  private dirty = true;
  /** A read loop is under way (a push may hand a chunk to a waiting read, which reads on): one at a time. */
  private reading = false;
  private takenAtLastBeat = 0;
  private leave: () => void = () => undefined;
  private beat: ReturnType<typeof setInterval> | undefined;
  private readonly onAbort = () => {
    this.finish();
    this.settle();
  };

  constructor(private readonly parts: EventStreamParts) {
    this.lastPosition = parts.startPosition;
    this.capacity = parts.options.bufferBytes;
    this.buffer = new StreamBuffer({ pull: () => void this.deliver(), cancel: this.onAbort }, parts.options.response);
  }

  /** Joins the hub (429 or 503 before anything is sent), then answers 200 with the cursor frame first. */
  open(credential: string): Response {
    const { hub, options } = this.parts;
    this.leave = hub.join(
      { siteId: this.parts.selection.siteId, workspaceId: this.parts.workspaceId, credential },
      { wake: () => this.wake(), end: () => this.end(), bufferedBytes: () => this.buffer.bufferedBytes() },
    );
    this.beat = setInterval(() => this.heartbeat(), options.heartbeatMs);
    this.beat.unref();
    this.hold(`event: cursor\ndata: ${JSON.stringify({ cursor: this.cursorOf(this.lastPosition) })}\n\n`);
    options.response?.once('close', () => this.settle());
    if (options.signal?.aborted) this.onAbort();
    else options.signal?.addEventListener('abort', this.onAbort, { once: true });
    return new Response(this.buffer.body, { status: 200, headers: sseHeaders });
  }

  private cursorOf(position: LogPosition): string {
    const { context, fingerprint } = this.parts;
    return signCursor(context, cursorKind, fingerprint, { s: position });
  }

  private hold(text: string): void {
    this.buffer.push(text);
    this.parts.hub.metrics.observeBuffered(this.buffer.bufferedBytes());
  }

  /** Events may have been stored (a commit, the projector's progress). */
  private wake(): void {
    this.dirty = true;
    void this.deliver();
  }

  /**
   * Reads on while events may be waiting and the buffer has room. Full: the client's next read (or the next
   * heartbeat) reads on; events wait in the log, not in memory.
   */
  private async deliver(): Promise<void> {
    if (this.done || !this.dirty || this.reading) return;
    this.reading = true;
    try {
      while (!this.done && this.dirty) {
        const room = this.capacity - this.buffer.bufferedBytes();
        if (room <= 0) return;
        // Cleared before the read: a wake while it is under way sets it again, and is not lost.
        this.dirty = false;
        // Sized to the room, so events read are events sent (large events would otherwise be read, dropped, read again).
        const limit = Math.min(batchSize, Math.ceil(room / smallestFrameBytes));
        const tail = await this.parts.readModel.eventsAfter({ ...this.parts.selection, afterPosition: this.lastPosition, limit });
        if (this.done) return;
        this.send(tail, limit);
      }
    } catch (error) {
      // A failed read (the database closing under it) ends this stream alone; the client may resume.
      this.finish();
      this.settle();
      this.buffer.fail(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.reading = false;
    }
  }

  /** Holds what fits of a read and moves the position past what was sent (or past all it looked at). */
  private send(tail: EventTail, limit: number): void {
    // Measured again: what is held may have changed while the read was under way.
    const { frames, sent } = framesFitting(tail.events, this.capacity - this.buffer.bufferedBytes(), (position) => this.cursorOf(position));
    const complete = tail.events.length < limit && sent === tail.events.length;
    if (complete) this.lastPosition = tail.throughPosition;
    else {
      if (sent > 0) this.lastPosition = tail.events[sent - 1]!.position;
      this.dirty = true;
    }
    if (sent > 0) this.hold(frames);
  }

  /** Keeps an idle connection open, closes a stalled one, and polls: events written by another process arrive too. */
  private heartbeat(): void {
    this.closeIfStalled();
    if (this.done) return;
    if (this.buffer.bufferedBytes() < this.capacity) this.hold(': heartbeat\n\n');
    this.wake();
  }

  /**
   * A client that took nothing for a whole interval while the buffer was full (or, once the stream is ending, held
   * anything) has stopped reading: its frames would be held for nothing, and its connection would keep a stopping
   * server waiting. It is closed; an EventSource reconnects with Last-Event-ID and resumes from the log.
   */
  private closeIfStalled(): void {
    const taken = this.buffer.takenBytes();
    const held = this.buffer.bufferedBytes();
    if (this.done && held === 0) return this.settle();
    const stalled = taken === this.takenAtLastBeat && (this.done ? held > 0 : held >= this.capacity);
    this.takenAtLastBeat = taken;
    if (!stalled) return;
    this.parts.hub.metrics.closedSlowReader();
    this.finish();
    this.settle();
    // With a Node response, destroying it cancels the body; what the socket still holds is dropped with it.
    if (this.parts.options.response) this.parts.options.response.destroy();
    else this.buffer.fail(new Error('the client took nothing while its event stream buffer was full'));
  }

  /** The app is closing: what is held still goes out, then the response ends (a client that stops taking it is closed). */
  private end(): void {
    if (this.done) return;
    this.finish();
    this.buffer.close();
    if (!this.parts.options.response) this.settle();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.parts.options.signal?.removeEventListener('abort', this.onAbort);
    this.leave();
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    clearInterval(this.beat);
  }
}

/**
 * Checks the cursor and the caps (throwing 400 or 429 before anything is sent), then answers 200 with a body that
 * stays open until the client leaves, the app closes or the client stops taking what it is sent.
 * @example return openEventStream(context, readModel, hub, site, 'admin-token', params, { heartbeatMs: 15_000, bufferBytes: 1 << 20 });
 */
export async function openEventStream(
  context: AppContext,
  readModel: ReadModel,
  hub: StreamHub,
  site: SiteRow,
  credential: string,
  params: StreamParams,
  options: StreamOptions,
): Promise<Response> {
  const fingerprint = streamFingerprint(site.id, params);
  const startPosition = await startPositionOf(context, readModel, params, fingerprint);
  const selection = { siteId: site.id, type: params.type, anonId: params.anonId, range: params.range, filters: params.filters, withInternal: params.withInternal };
  return new EventStream({ context, readModel, hub, selection, workspaceId: site.workspace_id, fingerprint, startPosition, options }).open(credential);
}
