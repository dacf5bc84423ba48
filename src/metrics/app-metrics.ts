// The metrics Sightline exposes at /metrics, created once per app.
import { statSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type Db, eventLogPath } from '../db/open.ts';
import { MetricsRegistry, type Counter, type Histogram } from './registry.ts';

/** Milliseconds; the low buckets are where the "p99 under 5 ms" promise is read. */
export const latencyBucketsMs = [0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500] as const;

export interface AppMetrics {
  registry: MetricsRegistry;
  /** Events by outcome: accepted, duplicate, quarantined, dropped_consent, rejected_invalid, rejected_schema, rejected_rate_limit, rejected_overloaded. */
  ingestEvents: Counter;
  ingestLatencyMs: Histogram;
  commitBatchEvents: Histogram;
  flushLatencyMs: Histogram;
  httpLatencyMs: Histogram;
  setQueueDepth(read: () => number): void;
}

export function createAppMetrics(db: Db): AppMetrics {
  const registry = new MetricsRegistry();
  let readQueueDepth = () => 0;
  registry.gauge('sightline_ingest_queue_depth', 'Events waiting for the next group commit', () => readQueueDepth());
  registry.gauge('sightline_database_size_bytes', 'Size of the database files (sightline.db and the event log) and their WALs', () => {
    let total = 0;
    for (const file of [db.name, eventLogPath(db.name)]) {
      for (const suffix of ['', '-wal']) {
        try {
          total += statSync(file + suffix).size;
        } catch {
          // no WAL yet
        }
      }
    }
    return total;
  });
  // How long the HTTP thread was kept from answering: every ingest answer waits behind it.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  registry.gauge('sightline_event_loop_delay_p99_ms', 'p99 of the HTTP thread event-loop delay since start (ms)', () => loopDelay.percentile(99) / 1e6);
  registry.gauge('sightline_event_loop_delay_max_ms', 'Longest HTTP thread event-loop delay since start (ms)', () => loopDelay.max / 1e6);
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
    httpLatencyMs: registry.histogram('sightline_http_request_duration_ms', 'HTTP handler duration by route (ms)', latencyBucketsMs),
    setQueueDepth: (read) => {
      readQueueDepth = read;
    },
  };
}
