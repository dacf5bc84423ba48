// Load generator, run as its own process. Closed loop: N connections each sending as fast as answers come.
// Open loop: requests are scheduled at a fixed rate and latency counts from the scheduled send time, so queueing
// in the server (or the client) is not hidden. Prints one JSON line of results.
import { Agent, request } from 'node:http';
import { randomUUID } from 'node:crypto';

const options = JSON.parse(process.argv[2]);
const { url, siteId, mode, connections = 50, durationMs = 10_000, rate = 0, batch = 1 } = options;
const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
const target = new URL('/events', url);

function body() {
  const ts = new Date().toISOString();
  const events = Array.from({ length: batch }, () => ({
    id: randomUUID(),
    site_id: siteId,
    anon_id: `visitor-${Math.floor(Math.random() * 50_000)}`,
    ts,
    type: 'pageview',
    url: `https://bench.example/page/${Math.floor(Math.random() * 500)}?utm_source=bench`,
    referrer: 'https://www.google.com/',
  }));
  return JSON.stringify(batch === 1 ? events[0] : events);
}

function send() {
  return new Promise((resolve) => {
    const payload = body();
    const outgoing = request(
      target,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${siteId}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      },
    );
    outgoing.on('error', () => resolve(0));
    outgoing.end(payload);
  });
}

function percentile(sorted, q) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const statuses = {};
const count = (status) => (statuses[status] = (statuses[status] ?? 0) + 1);

if (mode === 'closed') {
  const end = performance.now() + durationMs;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        count(await send());
        done++;
      }
    }),
  );
  const seconds = durationMs / 1000;
  console.log(JSON.stringify({ requests: done, requestsPerSecond: done / seconds, eventsPerSecond: (done * batch) / seconds, statuses }));
} else {
  const latencies = [];
  const total = Math.round((rate * durationMs) / 1000);
  const start = performance.now() + 50;
  let scheduled = 0;
  const inFlight = [];
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (scheduled < total && start + (scheduled * 1000) / rate <= now) {
        const plannedAt = start + (scheduled * 1000) / rate;
        scheduled++;
        inFlight.push(
          send().then((status) => {
            count(status);
            latencies.push(performance.now() - plannedAt);
          }),
        );
      }
      if (scheduled >= total) resolve();
      else setImmediate(tick);
    };
    tick();
  });
  await Promise.all(inFlight);
  latencies.sort((a, b) => a - b);
  console.log(JSON.stringify({ requests: latencies.length, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), p999: percentile(latencies, 0.999), statuses }));
}
agent.destroy();
