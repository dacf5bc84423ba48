// Runs the benchmarks' generator (bench/reports-workload.ts) in a child process: `write` stores the events through
// the ingest writer's commit, `project` runs the projector over them until it has caught up. The TypeScript is
// bundled once into dist/ so its imports of better-sqlite3 and friends resolve to node_modules.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import { nodeBundleOptions } from '../build/bundle-options.mjs';
import { root } from './harness.mjs';

let bundled;

async function bundle() {
  const outfile = join(root, 'dist', 'bench-workload.mjs');
  await build({
    stdin: {
      contents: `import { writeWorkload, projectAll } from './bench/reports-workload.ts';
        const [command, text] = process.argv.slice(2);
        const options = JSON.parse(text);
        const sorted = (values) => [...values].sort((a, b) => a - b);
        const at = (values, q) => values.length ? values[Math.min(values.length - 1, Math.floor(q * values.length))] : null;
        let next = 0;
        const progress = (done, elapsedMs) => {
          if (done < next) return;
          next += 1_000_000;
          process.stderr.write(\`  \${(done / 1e6).toFixed(1)}M events in \${(elapsedMs / 1000).toFixed(0)} s\\n\`);
        };
        if (command === 'write') {
          const result = writeWorkload({ ...options, onProgress: progress });
          const commits = sorted(result.commitMs);
          console.log(JSON.stringify({ elapsedMs: result.elapsedMs, commits: commits.length, commitP50: at(commits, 0.5), commitP99: at(commits, 0.99) }));
        } else {
          const result = projectAll(options.databasePath, options.batchEvents, progress, options.cacheMiB, options.withoutVisitSequences);
          const batches = sorted(result.batchMs);
          console.log(JSON.stringify({ elapsedMs: result.elapsedMs, cpuMs: result.cpuMs, events: result.events, batches: batches.length, batchP50: at(batches, 0.5), batchP99: at(batches, 0.99) }));
        }`,
      resolveDir: root,
      loader: 'ts',
    },
    outfile,
    ...nodeBundleOptions,
  });
  return outfile;
}

/** `write` or `project`; returns the child's JSON summary. `nodeArgs` go to the child's node (e.g. --cpu-prof). */
export async function runWorkload(command, options, nodeArgs = []) {
  bundled ??= await bundle();
  const output = execFileSync(process.execPath, [...nodeArgs, bundled, command, JSON.stringify(options)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
  return JSON.parse(output.trim().split('\n').pop());
}

/** The last day of the reports and analysis benchmarks' traffic (epoch ms of its midnight, UTC). */
export const benchLastDayMs = Date.UTC(2026, 9, 31);

/**
 * The reports benchmark's data set, scaled to `events` (10 million: 400 days, 5,000 paths, 300 referrers, 50
 * countries, 200,000 visitors); the analysis benchmark adds `analysis: true`.
 */
export function reportsWorkload(databasePath, siteId, events) {
  const visitors = Math.max(1000, Math.round((200_000 * events) / 10_000_000));
  return { databasePath, siteId, events, days: 400, paths: 5000, referrers: 300, countries: 50, visitors, lastDayMs: benchLastDayMs };
}
