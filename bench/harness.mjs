// What the benchmarks share: starting and stopping the server, plain HTTP calls, the open-loop load generator,
// the server-side latency histogram from /metrics, medians.
import { spawn, execFileSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const adminToken = 'bench-admin-token-0123456789';

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
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

export function runLoad(options) {
  const output = execFileSync(process.execPath, [join(root, 'bench', 'load.mjs'), JSON.stringify(options)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(output.trim().split('\n').pop());
}

export async function scrapeHistogram(url) {
  const text = await call(`${url}/metrics`);
  const buckets = [];
  for (const line of text.split('\n')) {
    const match = /^sightline_ingest_latency_ms_bucket\{le="([^"]+)"\} (\d+)/.exec(line);
    if (match) buckets.push({ le: match[1] === '+Inf' ? Infinity : Number(match[1]), count: Number(match[2]) });
  }
  return buckets;
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

