// npm run bench -- ceiling: how much of the ingest budget each layer takes. The committed code (HEAD) is checked out
// into a throwaway worktree with bench/ceiling.patch applied, which lets the writer thread skip work by
// CEILING_WRITER (the switch exists only there, never in the shipped server), and three writers are measured the
// same way as `npm run bench -- ingest`:
//   noop   - the writer answers without touching the database: HTTP, auth, wire check, tracking plan,
//            enrichment and the thread hand-off only (the most the HTTP thread allows);
//   events - the event rows with their indexes, dedup and identity bindings, and nothing derived from them;
//   full   - the shipped writer: visits, visitor numbers and the report sets too.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchSiteId, fixed, median, root, runLoad, saturate, scrapeHistogram, serverQuantile, startBenchServer, startProcess, stopProcess, threadCpuMs } from './harness.mjs';

const writers = ['noop', 'events', 'full'];

function checkOutPatched() {
  const tree = mkdtempSync(join(tmpdir(), 'sightline-ceiling-'));
  execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', tree, 'HEAD'], { stdio: 'ignore' });
  symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'));
  execFileSync('git', ['-C', tree, 'apply', join(root, 'bench', 'ceiling.patch')], { stdio: 'inherit' });
  execFileSync(process.execPath, [join(tree, 'build', 'build.mjs')], { cwd: tree, stdio: 'ignore' });
  return tree;
}

/** CPU per request of the HTTP (main) thread and of the busiest other thread: the writer, when it does any work. */
function perRequestByThread(pid, before, requests) {
  const after = threadCpuMs(pid);
  let busiestOther = 0;
  for (const [tid, ms] of after) if (tid !== pid) busiestOther = Math.max(busiestOther, ms - (before.get(tid) ?? 0));
  return { mainMicros: ((after.get(pid) - before.get(pid)) * 1000) / requests, busiestOtherMicros: (busiestOther * 1000) / requests };
}

async function measureWriter(tree, writer, seconds, rounds) {
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-ceiling-data-'));
  const server = await startBenchServer(tree, dataDir, writer === 'full' ? {} : { CEILING_WRITER: writer });
  try {
    saturate(server.url, 2, server.child.pid);
    const runs = [];
    for (let round = 0; round < rounds; round++) {
      const threadsBefore = threadCpuMs(server.child.pid);
      const run = saturate(server.url, seconds, server.child.pid);
      runs.push({ ...run, ...perRequestByThread(server.child.pid, threadsBefore, run.requestsPerSecond * seconds) });
    }
    const before = await scrapeHistogram(server.url);
    const open = runLoad({ url: server.url, siteId: benchSiteId, mode: 'open', rate: 2000, connections: 50, durationMs: seconds * 1000 });
    const after = await scrapeHistogram(server.url);
    return {
      requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
      serverCores: median(runs.map((r) => r.serverCores)),
      loadCores: median(runs.map((r) => r.loadCores)),
      mainMicros: median(runs.map((r) => r.mainMicros)),
      busiestOtherMicros: median(runs.map((r) => r.busiestOtherMicros)),
      p50: serverQuantile(before, after, 0.5),
      p99: serverQuantile(before, after, 0.99),
      clientP99: open.p99,
    };
  } finally {
    await stopProcess(server.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(args) {
  const quick = args.includes('--quick');
  const seconds = quick ? 3 : 8;
  const rounds = quick ? 1 : 3;
  const tree = checkOutPatched();
  try {
    const bare = await startProcess(process.execPath, [join(root, 'bench', 'bare-server.mjs')], {});
    let bareRun;
    try {
      saturate(bare.url, 2, bare.child.pid);
      const runs = [];
      for (let round = 0; round < rounds; round++) runs.push(saturate(bare.url, seconds, bare.child.pid));
      bareRun = { requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)), serverCores: median(runs.map((r) => r.serverCores)), loadCores: median(runs.map((r) => r.loadCores)) };
    } finally {
      await stopProcess(bare.child);
    }
    console.log(`Ingest ceiling (HEAD with bench/ceiling.patch): median of ${rounds} saturated run(s) of ${seconds} s, then 2,000 ev/s open loop.`);
    console.log(`  bare node:http : ${fixed(bareRun.requestsPerSecond, 0)} req/s, server ${fixed(bareRun.serverCores)} cores (${fixed((bareRun.serverCores * 1e6) / bareRun.requestsPerSecond, 0)} µs/req), load generator ${fixed(bareRun.loadCores)}`);
    for (const writer of writers) {
      const result = await measureWriter(tree, writer, seconds, rounds);
      console.log(
        `  writer ${writer.padEnd(7)}: ${fixed(result.requestsPerSecond, 0)} req/s = ${fixed((100 * result.requestsPerSecond) / bareRun.requestsPerSecond, 1)} % of bare, server ${fixed(result.serverCores)} cores (${fixed((result.serverCores * 1e6) / result.requestsPerSecond, 0)} µs/req: HTTP thread ${fixed(result.mainMicros, 0)}, busiest other thread ${fixed(result.busiestOtherMicros, 0)}), load generator ${fixed(result.loadCores)} | 2,000 ev/s: server p50 ${fixed(result.p50)} p99 ${fixed(result.p99)} ms, client p99 ${fixed(result.clientP99)} ms`,
      );
    }
  } finally {
    execFileSync('git', ['-C', root, 'worktree', 'remove', '--force', tree], { stdio: 'ignore' });
  }
}
