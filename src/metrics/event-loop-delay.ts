// The HTTP thread's event-loop delay as a Prometheus histogram: how long a timer due every 10 ms was kept waiting.
// A request whose bytes arrive while the loop is busy waits as long before its handler even starts, which the
// ingest latency histogram (measured from the handler's start) cannot see. One sampler per thread, whatever the
// number of apps on it: the delay belongs to the thread, and tests create many apps in one process.
import { Histogram } from './registry.ts';

const samplingIntervalMs = 10;

/** Milliseconds: from timer jitter to a loop blocked for seconds. */
const delayBucketsMs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2500] as const;

let shared: Histogram | undefined;

/**
 * The thread's delay histogram, sampling from the first call on (an unref'd timer: it keeps no process alive).
 * @example registry.include(eventLoopDelayHistogram());
 */
export function eventLoopDelayHistogram(): Histogram {
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
