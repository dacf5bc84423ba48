// The metrics Sightline exposes at /metrics, created once per app.
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { type Db, eventLogPath } from '../db/open.ts';
import { MetricsRegistry, type Counter, Histogram } from './registry.ts';

/** Milliseconds; the low buckets are where the "p99 under 5 ms" promise is read. */
export const latencyBucketsMs = [0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500] as const;

// The HTTP thread's event-loop delay as a Prometheus histogram: how long a timer due every 10 ms was kept waiting.
// A request whose bytes arrive while the loop is busy waits as long before its handler even starts, which the
// ingest latency histogram (measured from the handler's start) cannot see. One sampler per thread, whatever the
// number of apps on it: the delay belongs to the thread, and tests create many apps in one process.
const samplingIntervalMs = 10;

/** Milliseconds: from timer jitter to a loop blocked for seconds. */
const delayBucketsMs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2500] as const;

let shared: Histogram | undefined;

/**
 * The thread's delay histogram, sampling from the first call on (an unref'd timer: it keeps no process alive).
 * @example registry.include(eventLoopDelayHistogram());
 */
function eventLoopDelayHistogram(): Histogram {
  if (shared) return shared;
  const histogram = new Histogram('sightline_event_loop_delay_ms', 'HTTP thread event-loop delay: how late a timer due every 10 ms ran (ms)', delayBucketsMs);
  let expected = performance.now() + samplingIntervalMs;
  const timer = setInterval(() => {
    const now = performance.now();
    histogram.observe(Math.max(0, now - expected));
    expected = now + samplingIntervalMs;
  }, samplingIntervalMs);
  timer.unref();
  shared = histogram;
  return histogram;
}

/** Milliseconds: a scavenge takes about 1 ms on a thread of its own; tens of ms mean it waited for something. */
const gcPauseBucketsMs = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500] as const;

const gcKinds = new Map<number, string>([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
]);

let sharedGc: Histogram | undefined;

/**
 * The thread's garbage-collection pauses by kind (minor: a scavenge of the young generation; major: a mark-compact;
 * incremental: a step of incremental marking), one observer per thread as for the loop delay. A pause stops the
 * loop: the event-loop delay shows that the loop was held, this shows when the collector held it
 * (docs/ingest.md, "Garbage collection").
 * @example registry.include(gcPauseHistogram());
 */
function gcPauseHistogram(): Histogram {
  if (sharedGc) return sharedGc;
  const histogram = new Histogram('sightline_gc_pause_ms', 'HTTP thread garbage-collection pauses by kind: minor (scavenge), major (mark-compact), incremental, weakcb (ms)', gcPauseBucketsMs);
  const labels = new Map([...gcKinds.values()].map((kind) => [kind, { kind }]));
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = gcKinds.get((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0) ?? 'other';
      histogram.observe(entry.duration, labels.get(kind) ?? { kind });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  sharedGc = histogram;
  return histogram;
}

export interface AppMetrics {
  registry: MetricsRegistry;
  /** Events by outcome: accepted, duplicate, quarantined, dropped_consent, rejected_invalid, rejected_schema, rejected_rate_limit, rejected_overloaded. */
  ingestEvents: Counter;
  ingestLatencyMs: Histogram;
  commitBatchEvents: Histogram;
  flushLatencyMs: Histogram;
  /** By route (its pattern, unprefixed), method and status class (2xx, 4xx, 5xx…). */
  httpLatencyMs: Histogram;
  observeRoute(route: string, method: string, status: number, ms: number): void;
  setQueueDepth(read: () => number): void;
}

export function createAppMetrics(db: Db): AppMetrics {
  const registry = new MetricsRegistry();
  let readQueueDepth = () => 0;
  registry.gauge('sightline_ingest_queue_depth', 'Events waiting for the next group commit', () => readQueueDepth());
  const fileSizes = (): [Record<string, string>, number][] => {
    if (db.memory) return [];
    const sizes: [Record<string, string>, number][] = [];
    for (const file of [db.name, eventLogPath(db.name)]) {
      for (const suffix of ['', '-wal']) {
        try {
          sizes.push([{ file: basename(file) + suffix }, statSync(file + suffix).size]);
        } catch {
          // no WAL yet
        }
      }
    }
    return sizes;
  };
  registry.gauge('sightline_database_size_bytes', 'Size of the database files (sightline.db and the event log) and their WALs', () =>
    fileSizes().reduce((total, [, size]) => total + size, 0),
  );
  registry.labeledGauge('sightline_database_file_bytes', 'Size of each database file and WAL (a WAL that keeps growing means checkpoints are starved)', fileSizes);
  // How long the HTTP thread was kept from answering: every ingest answer waits behind it.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  registry.gauge('sightline_event_loop_delay_p99_ms', 'p99 of the HTTP thread event-loop delay since start (ms)', () => loopDelay.percentile(99) / 1e6);
  registry.gauge('sightline_event_loop_delay_max_ms', 'Longest HTTP thread event-loop delay since start (ms)', () => loopDelay.max / 1e6);
  // The same delay as a histogram, so a scrape before and after a load tells the delay during it (bench/ingest.mjs).
  registry.include(eventLoopDelayHistogram());
  registry.include(gcPauseHistogram());
  const httpLatencyMs = registry.histogram('sightline_http_request_duration_ms', 'HTTP handler duration by route, method and status class (ms)', latencyBucketsMs);
  const httpRequests = registry.counter('sightline_http_requests_total', 'HTTP requests answered, by route, method and status class');
  return {
    registry,
    ingestEvents: registry.counter('sightline_ingest_events_total', 'Ingested events by outcome'),
    ingestLatencyMs: registry.histogram(
      'sightline_ingest_latency_ms',
      'Server-side ingest latency, request received to response written (ms)',
      latencyBucketsMs,
    ),
    commitBatchEvents: registry.histogram('sightline_ingest_commit_batch_events', 'Events per group commit', [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000]),
    flushLatencyMs: registry.histogram('sightline_ingest_flush_latency_ms', 'Duration of one group commit (ms)', latencyBucketsMs),
    httpLatencyMs,
    observeRoute: (route, method, status, ms) => {
      const labels = { route, method, status: `${Math.floor(status / 100)}xx` };
      httpLatencyMs.observe(ms, labels);
      httpRequests.inc(labels);
    },
    setQueueDepth: (read) => {
      readQueueDepth = read;
    },
  };
}
