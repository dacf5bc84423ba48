// GET /sites/:siteId/events/stream-v2: a Server-Sent Events tail of one site's events. The first frame is the
// cursor (sent at once); each event is `id: <cursor>`, `event: event`, `data: <list-v2 event>`; a comment line
// keeps an idle connection open. The cursor holds the last seq looked at, so a resume (cursor parameter or
// Last-Event-ID) loses and repeats nothing. New rows are read after each commit, in bounded batches, only while the
// stream holds less than its buffer's bytes for the client; a client that takes nothing while it is full is closed.
import type { SiteRow } from '../admin/queries/find-site.ts';
import type { AppContext } from '../context.ts';
import { fingerprintOf, signCursor, verifyCursor } from '../reports/cursor.ts';
import { boundsOfRange, type StreamParams } from './event-params.ts';
import { toEventItem } from './event-item.ts';
import { newestEventSeq } from '../event-store/queries/newest-events.ts';
import { toEventFilterParams } from '../event-store/queries/event-filter.ts';
import { listStreamEventRows } from '../event-store/queries/stream-event-rows.ts';
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

/** Where the stream starts: the resume cursor's seq, else the newest committed event (a tail). Bad cursors are 400s. */
function startSeqOf(context: AppContext, params: StreamParams, fingerprint: string): number {
  if (!params.cursor) return newestEventSeq(context.db);
  const seq = verifyCursor(context, params.cursor.value, cursorKind, fingerprint, params.cursor.name).s;
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : 0;
}

/**
 * Checks the cursor and the caps (throwing 400 or 429 before anything is sent), then answers 200 with a body that
 * stays open until the client leaves, the app closes or the client stops taking what it is sent.
 */
export function openEventStream(
  context: AppContext,
  hub: StreamHub,
  site: SiteRow,
  credential: string,
  params: StreamParams,
  options: StreamOptions,
): Response {
  // The cursor is bound to everything that selects rows. The range and the dimension filters are added only when
  // given, so a stream without them keeps the fingerprint cursors had before they existed (a reconnecting
  // EventSource resumes across an upgrade).
  const bound: unknown[] = [cursorKind, site.id, params.type, params.anonId, params.withInternal];
  if (params.range || Object.keys(params.filters).length > 0) bound.push(params.range ?? null, params.filters);
  const fingerprint = fingerprintOf(bound);
  const bounds = params.range ? boundsOfRange(params.range) : { start_ms: null, end_ms: null };
  const filter = toEventFilterParams(params.filters, params.withInternal);
  let lastSeq = startSeqOf(context, params, fingerprint);
  const cursorOf = (seq: number) => signCursor(context, cursorKind, fingerprint, { s: seq });
  const capacity = options.bufferBytes;
  const { response } = options;
  // Left the hub: reads and sends nothing more.
  let done = false;
  // The response is over (or abandoned): nothing left to watch.
  let settled = false;
  // Rows may be waiting: set by every commit and heartbeat, cleared when a read comes back short.
  let dirty = true;
  let takenAtLastBeat = 0;

  const buffer = new StreamBuffer(
    {
      pull: () => deliver(),
      cancel: () => {
        finish();
        settle();
      },
    },
    response,
  );
  const hold = (text: string) => {
    buffer.push(text);
    hub.metrics.observeBuffered(buffer.bufferedBytes());
  };

  // A push may hand a chunk to a waiting read, which may read on: `reading` keeps one read loop at a time.
  let reading = false;
  const deliver = () => {
    if (done || !dirty || reading) return;
    reading = true;
    try {
      while (!done && dirty) {
        // Full: the client's next read (or the next heartbeat) reads on. Rows wait in the log, not in memory.
        const room = capacity - buffer.bufferedBytes();
        if (room <= 0) return;
        // Every seq up to the newest committed one is committed (one writer, seqs in commit order), so rows the
        // filters skip are looked at once, not again on every wake. A visit filter needs the event's visit: only
        // events the projector has reached are looked at (it wakes the stream as it goes).
        const committed = newestEventSeq(context.db);
        const uptoSeq = filter.visit_filtered ? Math.min(committed, hub.projectedSeq()) : committed;
        // Sized to the room, so rows read are rows sent (large events would otherwise be read, dropped, read again).
        const limit = Math.min(batchSize, Math.ceil(room / smallestFrameBytes));
        const rows = listStreamEventRows(context.db, {
          site_id: site.id,
          after_seq: lastSeq,
          upto_seq: uptoSeq,
          ...bounds,
          ...filter,
          type: params.type,
          anon_id: params.anonId,
          limit,
        });
        let frames = '';
        let bytes = 0;
        let sent = 0;
        for (const row of rows) {
          const frame = `id: ${cursorOf(row.seq)}\nevent: event\ndata: ${JSON.stringify(toEventItem(row))}\n\n`;
          const size = Buffer.byteLength(frame);
          // One frame at least, however large, so a stream always moves on: the buffer holds at most one over.
          if (sent > 0 && bytes + size > room) break;
          frames += frame;
          bytes += size;
          sent++;
        }
        const complete = rows.length < limit && sent === rows.length;
        lastSeq = complete ? Math.max(lastSeq, uptoSeq) : rows[sent - 1]!.seq;
        if (complete) dirty = false;
        if (sent > 0) hold(frames);
      }
    } catch (error) {
      // A failed read (the database closing under it) ends this stream alone; the client may resume.
      finish();
      settle();
      buffer.fail(error instanceof Error ? error : new Error(String(error)));
    } finally {
      reading = false;
    }
  };

  const leave = hub.join(
    { siteId: site.id, workspaceId: site.workspace_id, credential },
    {
      wake: () => {
        dirty = true;
        deliver();
      },
      end: () => {
        if (done) return;
        finish();
        // What is held still goes out; then the response ends (a client that stops taking it is closed).
        buffer.close();
        if (!response) settle();
      },
      bufferedBytes: () => buffer.bufferedBytes(),
    },
  );
  const beat = setInterval(() => {
    closeIfStalled();
    if (done) return;
    if (buffer.bufferedBytes() < capacity) hold(': heartbeat\n\n');
    // Also a slow poll: rows written by another process (no commit notice here) still arrive.
    dirty = true;
    deliver();
  }, options.heartbeatMs);
  beat.unref();

  /**
   * A client that took nothing for a whole interval while the buffer was full (or, once the stream is ending, held
   * anything) has stopped reading: its frames would be held for nothing, and its connection would keep a stopping
   * server waiting. It is closed; an EventSource reconnects with Last-Event-ID and resumes from the log.
   */
  function closeIfStalled() {
    const taken = buffer.takenBytes();
    const held = buffer.bufferedBytes();
    if (done && held === 0) return settle();
    const stalled = taken === takenAtLastBeat && (done ? held > 0 : held >= capacity);
    takenAtLastBeat = taken;
    if (!stalled) return;
    hub.metrics.closedSlowReader();
    finish();
    settle();
    // With a Node response, destroying it cancels the body; what the socket still holds is dropped with it.
    if (response) response.destroy();
    else buffer.fail(new Error('the client took nothing while its event stream buffer was full'));
  }

  const onAbort = () => {
    finish();
    settle();
  };
  function finish() {
    if (done) return;
    done = true;
    options.signal?.removeEventListener('abort', onAbort);
    leave();
  }
  function settle() {
    if (settled) return;
    settled = true;
    clearInterval(beat);
  }

  hold(`event: cursor\ndata: ${JSON.stringify({ cursor: cursorOf(lastSeq) })}\n\n`);
  response?.once('close', settle);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return new Response(buffer.body, { status: 200, headers: sseHeaders });
}
