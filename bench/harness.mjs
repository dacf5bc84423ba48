// What the benchmarks share: starting and stopping the server, plain HTTP calls, the open-loop load generator,
// the server-side latency histogram from /metrics, medians.
import { spawn, execFileSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const adminToken = 'bench-admin-token-0123456789';
export const benchSiteId = 'bench';

/** One request on a fresh connection (the load phases outlast keep-alive timeouts of pooled sockets). */
export function call(url, method = 'GET', body) {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, agent: false, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve(text));
    });
    outgoing.on('error', reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export function startProcess(command, args, env) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) resolve({ child, url: match[1] });
    });
    child.on('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${output}`)));
  });
}

export function stopProcess(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

export function runLoad(options) {
  const output = execFileSync(process.execPath, [join(root, 'bench', 'load.mjs'), JSON.stringify(options)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(output.trim().split('\n').pop());
}

/** The buckets of one histogram from /metrics (the server-side ingest latency by default). */
export async function scrapeHistogram(url, name = 'sightline_ingest_latency_ms') {
  const text = await call(`${url}/metrics`);
  const buckets = [];
  const pattern = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)`);
  for (const line of text.split('\n')) {
    const match = pattern.exec(line);
    if (match) buckets.push({ le: match[1] === '+Inf' ? Infinity : Number(match[1]), count: Number(match[2]) });
  }
  return buckets;
}

/** One gauge or counter from /metrics (the first sample of that name). */
export async function scrapeValue(url, name) {
  const text = await call(`${url}/metrics`);
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}

/** histogram_quantile over the difference of two scrapes: linear interpolation inside the bucket. */
export function serverQuantile(before, after, q) {
  const diff = after.map((bucket, index) => ({ le: bucket.le, count: bucket.count - (before[index]?.count ?? 0) }));
  const total = diff[diff.length - 1].count;
  if (total === 0) return null;
  const rank = q * total;
  let previousLe = 0;
  let previousCount = 0;
  for (const bucket of diff) {
    if (bucket.count >= rank) {
      if (bucket.le === Infinity) return previousLe;
      return previousLe + ((bucket.le - previousLe) * (rank - previousCount)) / Math.max(1, bucket.count - previousCount);
    }
    previousLe = bucket.le;
    previousCount = bucket.count;
  }
  return null;
}

export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const fixed = (value, digits = 2) => (value === null || value === undefined ? 'n/a' : Number(value).toFixed(digits));


/** The tracking plan every ingest benchmark runs with: one declared event and a wildcard, checked in reject mode. */
export function writeBenchPlan(dir) {
  const planPath = join(dir, 'plan.json');
  writeFileSync(
    planPath,
    JSON.stringify({
      plan: 'bench',
      version: '1.0.0',
      events: {
        pageview: { type: 'object', required: ['type', 'referrer'], properties: { type: { const: 'pageview' }, referrer: { type: ['string', 'null'], maxLength: 2048 } } },
        '*': { type: 'object', additionalProperties: true, required: [] },
      },
    }),
  );
  return planPath;
}

/** Sightline from `serverRoot`, started as a user starts it (bin/sightline, with its launcher's flags), with the bench plan and limits out of the way, and the bench workspace and site. */
export async function startBenchServer(serverRoot, dataDir, env = {}) {
  const server = await startProcess(join(serverRoot, 'bin', 'sightline'), ['serve', '--port', '0'], {
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    SCHEMA_BUNDLE_PATH: writeBenchPlan(dataDir),
    SCHEMA_MODE: 'reject',
    RATE_LIMIT_SITE: '10000000',
    RATE_LIMIT_IP: '10000000',
    ...env,
  });
  await call(`${server.url}/workspaces`, 'POST', { name: 'Bench', slug: 'bench' });
  await call(`${server.url}/workspaces/bench/sites`, 'POST', { id: benchSiteId, name: 'Bench' });
  return server;
}

function hasWrk() {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    return error.status === 1; // wrk --version exits 1 after printing
  }
}

/** CPU time of a running process, user + system, in ms (clock ticks are 10 ms on Linux). */
export function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time of each thread of a running process, in ms, by thread id (the main thread's id is the pid). */
export function threadCpuMs(pid) {
  const byThread = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
    byThread.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return byThread;
}

/** CPU time of this process's finished, waited-for children (the load generators run synchronously), in ms. */
function finishedChildrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/**
 * Closed-loop single-event POSTs over 50 connections (wrk when installed, else the Node generator) for `seconds`.
 * `serverCores` and `loadCores` are the cores the server and the load generator used while it ran.
 */
export function saturate(url, seconds, serverPid) {
  const serverBefore = serverPid ? processCpuMs(serverPid) : 0;
  const loadBefore = finishedChildrenCpuMs();
  let outcome;
  if (hasWrk()) {
    const output = execFileSync('wrk', ['-t1', '-c50', `-d${seconds}s`, '-s', join(root, 'bench', 'wrk-events.lua'), url], {
      encoding: 'utf8',
      env: { ...process.env, BENCH_SITE: benchSiteId },
    });
    const result = JSON.parse(output.trim().split('\n').pop());
    outcome = { tool: 'wrk', requestsPerSecond: result.requests / result.seconds, non2xx: result.non2xx, socketErrors: result.socketErrors };
  } else {
    const result = runLoad({ url, siteId: benchSiteId, mode: 'closed', connections: 50, durationMs: seconds * 1000 });
    const non2xx = Object.entries(result.statuses).filter(([status]) => status !== '202').reduce((n, [, count]) => n + count, 0);
    outcome = { tool: 'node', requestsPerSecond: result.requestsPerSecond, non2xx };
  }
  return {
    ...outcome,
    serverCores: serverPid ? (processCpuMs(serverPid) - serverBefore) / 1000 / seconds : null,
    loadCores: (finishedChildrenCpuMs() - loadBefore) / 1000 / seconds,
  };
}
