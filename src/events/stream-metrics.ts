// What /metrics shows of stream-v2: open streams and the bytes they hold, refusals by the cap that refused them, and
// readers closed for taking nothing while their buffer was full.
import type { MetricsRegistry } from '../metrics/registry.ts';

/** The caps a new stream is checked against, in this order. */
export type StreamCap = 'site' | 'credential' | 'workspace' | 'total';

export interface StreamMetrics {
  refused(cap: StreamCap): void;
  closedSlowReader(): void;
  /** Called after a stream added to what it holds: keeps the most one stream has held. */
  observeBuffered(bytes: number): void;
}

export interface OpenStreamsReader {
  count(): number;
  bufferedBytes(): number;
}

/**
 * Registers the figures in `registry` (none without one: a hub in a unit test).
 * @example const metrics = defineStreamMetrics(app.metrics.registry, { count: () => 3, bufferedBytes: () => 0 });
 */
export function defineStreamMetrics(registry: MetricsRegistry | undefined, open: OpenStreamsReader): StreamMetrics {
  if (!registry) return { refused: () => undefined, closedSlowReader: () => undefined, observeBuffered: () => undefined };
  let mostBuffered = 0;
  registry.gauge('sightline_event_streams_open', 'Open stream-v2 connections', () => open.count());
  registry.gauge('sightline_event_stream_buffered_bytes', 'Bytes held for open stream-v2 connections, not yet taken by their sockets', () => open.bufferedBytes());
  registry.gauge(
    'sightline_event_stream_buffered_bytes_max',
    'Most bytes one stream-v2 connection has held since start (EVENT_STREAM_BUFFER_BYTES plus at most one frame)',
    () => mostBuffered,
  );
  const refusals = registry.counter('sightline_event_streams_refused_total', 'stream-v2 connections refused with 429 too_many_streams, by cap (site, credential, workspace, total)');
  const slowReaders = registry.counter(
    'sightline_event_streams_slow_closed_total',
    'stream-v2 connections closed because the reader took nothing for a heartbeat interval while its buffer was full',
  );
  return {
    refused: (cap) => refusals.inc({ cap }),
    closedSlowReader: () => slowReaders.inc(),
    observeBuffered: (bytes) => {
      if (bytes > mostBuffered) mostBuffered = bytes;
    },
  };
}
