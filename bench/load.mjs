// Load generator, run as its own process, on raw sockets (a Node http client would cost more CPU than the server
// it measures on a 2-core machine). Closed loop: N connections each sending as fast as answers come. Open loop:
// requests are scheduled at a fixed rate and latency counts from the scheduled send time, so queueing in the
// server or for a free connection is not hidden. Prints one JSON line of results.
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';

const options = JSON.parse(process.argv[2]);
const { url, siteId, mode, connections = 50, durationMs = 10_000, rate = 0, batch = 1, maxRequests = Infinity } = options;
const target = new URL(url);
const userAgent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

function requestBytes() {
  const ts = new Date().toISOString();
  const events = [];
  for (let index = 0; index < batch; index++) {
    events.push(
      `{"id":"${randomUUID()}","site_id":"${siteId}","anon_id":"visitor-${Math.floor(Math.random() * 50_000)}","ts":"${ts}","type":"pageview",` +
        `"url":"https://bench.example/page/${Math.floor(Math.random() * 500)}?utm_source=bench","referrer":"https://www.google.com/"}`,
    );
  }
  const body = batch === 1 ? events[0] : `[${events.join(',')}]`;
  return (
    `POST /events HTTP/1.1\r\nHost: ${target.host}\r\nAuthorization: Bearer ${siteId}\r\nContent-Type: application/json\r\n` +
    `User-Agent: ${userAgent}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** One keep-alive connection that sends a request and resolves with the status when the whole answer is in. */
function openConnection() {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    socket.setNoDelay(true);
    let buffer = '';
    let waiting;
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        const headerEnd = buffer.indexOf('\r\n\r\n');
        if (headerEnd < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(buffer.slice(0, headerEnd))?.[1] ?? 0);
        if (buffer.length < headerEnd + 4 + length) return;
        const status = Number(buffer.slice(9, 12));
        buffer = buffer.slice(headerEnd + 4 + length);
        const done = waiting;
        waiting = undefined;
        done?.(status);
      }
    });
    socket.on('error', (error) => {
      waiting?.(0);
      waiting = undefined;
      reject(error);
    });
    // A connection the server closed (e.g. its keep-alive timeout) answers nothing more: count the request as failed
    // instead of waiting for it forever.
    socket.on('close', () => {
      waiting?.(0);
      waiting = undefined;
    });
    socket.on('connect', () =>
      resolve({
        send: (bytes) => new Promise((done) => {
          waiting = done;
          socket.write(bytes);
        }),
        close: () => socket.destroy(),
      }),
    );
  });
}

function percentile(sorted, q) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const statuses = {};
const count = (status) => (statuses[status] = (statuses[status] ?? 0) + 1);
const pool = await Promise.all(Array.from({ length: connections }, openConnection));

if (mode === 'closed') {
  const end = performance.now() + durationMs;
  let done = 0;
  let sent = 0;
  await Promise.all(
    pool.map(async (connection) => {
      // maxRequests: a fixed amount of data whatever the machine's speed (the size benchmark).
      while (performance.now() < end && sent++ < maxRequests) {
        count(await connection.send(requestBytes()));
        done++;
      }
    }),
  );
  const seconds = durationMs / 1000;
  console.log(JSON.stringify({ requests: done, requestsPerSecond: done / seconds, eventsPerSecond: (done * batch) / seconds, statuses }));
} else {
  // Requests are prepared ahead so building them does not delay their scheduled send times.
  const total = Math.round((rate * durationMs) / 1000);
  const prepared = Array.from({ length: total }, requestBytes);
  const latencies = [];
  const free = [...pool];
  const queue = [];
  const start = performance.now() + 50;
  let scheduled = 0;
  let finished = 0;
  const dispatch = () => {
    while (free.length > 0 && queue.length > 0) {
      // Oldest free connection first: each stays busy, so none sits idle past the server's keep-alive timeout.
      const connection = free.shift();
      const { bytes, plannedAt } = queue.shift();
      connection.send(bytes).then((status) => {
        count(status);
        latencies.push(performance.now() - plannedAt);
        finished++;
        free.push(connection);
        dispatch();
      });
    }
  };
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (scheduled < total && start + (scheduled * 1000) / rate <= now) {
        queue.push({ bytes: prepared[scheduled], plannedAt: start + (scheduled * 1000) / rate });
        scheduled++;
      }
      dispatch();
      if (finished >= total) resolve();
      // Sleep until the next send is due (a busy loop would take a core from the server being measured).
      else setTimeout(tick, scheduled < total ? Math.max(0, start + (scheduled * 1000) / rate - performance.now()) : 1);
    };
    tick();
  });
  latencies.sort((a, b) => a - b);
  console.log(JSON.stringify({ requests: latencies.length, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), p999: percentile(latencies, 0.999), statuses }));
}
for (const connection of pool) connection.close();
