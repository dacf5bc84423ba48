// GET /sites/:siteId/events/stream-v2: a Server-Sent Events tail of one site's events. The first frame is the
// cursor (sent at once); each event is `id: <cursor>`, `event: event`, `data: <list-v2 event>`; a comment line
// keeps an idle connection open. The cursor holds the last seq looked at, so a resume (cursor parameter or
// Last-Event-ID) loses and repeats nothing. New rows are read after each commit, in bounded batches, only as fast
// as the client takes them.
import type { SiteRow } from '../admin/queries/find-site.ts';
import type { AppContext } from '../context.ts';
import { fingerprintOf, signCursor, verifyCursor } from '../reports/cursor.ts';
import { boundsOfRange, type StreamParams } from './event-params.ts';
import { toEventItem } from './event-item.ts';
import { newestEventSeq } from '../event-store/queries/newest-events.ts';
import { toEventFilterParams } from '../event-store/queries/event-filter.ts';
import { listStreamEventRows } from '../event-store/queries/stream-event-rows.ts';
import type { StreamHub } from './stream-hub.ts';

const cursorKind = 'events-stream';
const batchSize = 500;
const encoder = new TextEncoder();

export interface StreamOptions {
  heartbeatMs: number;
  /** Aborted when the client goes away (the request's signal). */
  signal?: AbortSignal;
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
 * Checks the cursor and the site's stream cap (throwing 400 or 429 before anything is sent), then answers 200 with
 * a body that stays open until the client leaves or the app closes.
 */
export function openEventStream(context: AppContext, hub: StreamHub, site: SiteRow, params: StreamParams, options: StreamOptions): Response {
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
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let done = false;
  // Rows may be waiting: set by every commit and heartbeat, cleared when a read comes back short.
  let dirty = true;

  // enqueue() may call pull() (and so deliver) synchronously: `reading` keeps one read loop at a time.
  let reading = false;
  const deliver = () => {
    if (done || !dirty || reading) return;
    reading = true;
    try {
      // One batch per chunk, and only while the client keeps up (desiredSize > 0): a slow client is not buffered.
      while (!done && (controller.desiredSize ?? 0) > 0) {
        // Every seq up to the newest committed one is committed (one writer, seqs in commit order), so rows the
        // filters skip are looked at once, not again on every wake. A visit filter needs the event's visit: only
        // events the projector has reached are looked at (it wakes the stream as it goes).
        const committed = newestEventSeq(context.db);
        const uptoSeq = filter.visit_filtered ? Math.min(committed, hub.projectedSeq()) : committed;
        const rows = listStreamEventRows(context.db, {
          site_id: site.id,
          after_seq: lastSeq,
          upto_seq: uptoSeq,
          ...bounds,
          ...filter,
          type: params.type,
          anon_id: params.anonId,
          limit: batchSize,
        });
        const complete = rows.length < batchSize;
        const frames = rows.map((row) => `id: ${cursorOf(row.seq)}\nevent: event\ndata: ${JSON.stringify(toEventItem(row))}\n\n`);
        lastSeq = complete ? Math.max(lastSeq, uptoSeq) : rows[rows.length - 1]!.seq;
        if (complete) dirty = false;
        if (frames.length > 0) controller.enqueue(encoder.encode(frames.join('')));
        if (complete) return;
      }
    } catch (error) {
      // A failed read (the database closing under it) ends this stream alone; the client may resume.
      finish();
      try {
        controller.error(error);
      } catch {
        // already closed
      }
    } finally {
      reading = false;
    }
  };

  const leave = hub.join(site.id, {
    wake: () => {
      dirty = true;
      deliver();
    },
    end: () => {
      if (done) return;
      finish();
      // What is queued still goes out; then the response ends.
      controller.close();
    },
  });
  const heartbeat = setInterval(() => {
    if ((controller.desiredSize ?? 0) > 0) controller.enqueue(encoder.encode(': heartbeat\n\n'));
    // Also a slow poll: rows written by another process (no commit notice here) still arrive.
    dirty = true;
    deliver();
  }, options.heartbeatMs);
  heartbeat.unref();
  const onAbort = () => finish();
  function finish() {
    if (done) return;
    done = true;
    clearInterval(heartbeat);
    options.signal?.removeEventListener('abort', onAbort);
    leave();
  }

  const body = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
        controller.enqueue(encoder.encode(`event: cursor\ndata: ${JSON.stringify({ cursor: cursorOf(lastSeq) })}\n\n`));
      },
      pull: () => deliver(),
      cancel: () => finish(),
    },
    { highWaterMark: 2 },
  );
  if (options.signal?.aborted) finish();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return new Response(body, { status: 200, headers: sseHeaders });
}
