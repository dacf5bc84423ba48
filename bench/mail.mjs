// npm run bench -- mail [--events N]: the time to build the e-mail report of a busy site (its figures from the read
// model, then the HTML and text parts), weekly and monthly, median of 5 after a warm-up. The data set is the reports
// benchmark's (bench/workload.mjs), 1 million events by default (--events 10000000 for the reports benchmark's size),
// written and projected first; the report is the one due on 2026-11-02 (weekly) and 2026-11-01 (monthly), the last
// week and month of traffic. The target is under 2 s.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { nodeBundleOptions } from '../build/bundle-options.mjs';
import { adminToken, call, fixed, median, root, startProcess, stopProcess } from './harness.mjs';
import { reportsWorkload, runWorkload } from './workload.mjs';

const siteId = 'bench';
const runs = 5;

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : fallback;
}

export async function bundleMailTimer() {
  const outfile = join(root, 'dist', 'bench-mail.mjs');
  await build({
    stdin: {
      contents: `import { timeReportMails } from './bench/mail-report.ts';
        const [dataDir, siteId, dueAt, runs] = process.argv.slice(2);
        console.log(JSON.stringify(await timeReportMails(dataDir, siteId, Number(dueAt), Number(runs))));`,
      resolveDir: root,
      loader: 'ts',
    },
    outfile,
    ...nodeBundleOptions,
  });
  return outfile;
}

export async function run(args) {
  const events = Number(option(args, '--events', 1_000_000));
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-bench-mail-'));
  try {
    const server = await startProcess(join(root, 'bin', 'sightline'), ['serve', '--port', '0'], { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken });
    await call(`${server.url}/workspaces`, 'POST', { name: 'Bench', slug: 'bench' });
    await call(`${server.url}/workspaces/bench/sites`, 'POST', { id: siteId, name: 'Bench' });
    await stopProcess(server.child);

    const workload = reportsWorkload(join(dataDir, 'sightline.db'), siteId, events);
    console.log(`Mail benchmark: ${events.toLocaleString('en')} events over ${workload.days} days, ${workload.paths} paths, ${workload.referrers} referrers, ${workload.visitors.toLocaleString('en')} visitors; 2 cores.`);
    const written = await runWorkload('write', workload);
    const projected = await runWorkload('project', { databasePath: workload.databasePath, batchEvents: 5000 });
    console.log(`  written in ${fixed(written.elapsedMs / 1000, 0)} s, projected in ${fixed(projected.elapsedMs / 1000, 0)} s`);
    const files = ['sightline.db', 'sightline.db-wal', 'events.db', 'events.db-wal'].map((name) => join(dataDir, name)).filter(existsSync);
    const sizeBytes = files.reduce((sum, path) => sum + statSync(path).size, 0);
    console.log(`  data: ${fixed(sizeBytes / 2 ** 20, 0)} MiB (both files and WALs)`);

    const timer = await bundleMailTimer();
    const dueAt = Date.UTC(2026, 10, 2, 6);
    const results = JSON.parse(execFileSync(process.execPath, [timer, dataDir, siteId, String(dueAt), String(runs)], { encoding: 'utf8' }).trim().split('\n').pop());
    console.log(`\nReport mail built (read model figures + HTML and text), median of ${runs} after a warm-up (min-max), ms:`);
    for (const [frequency, result] of Object.entries(results)) {
      console.log(`  ${frequency.padEnd(8)} ${fixed(median(result.times), 1)} (${fixed(Math.min(...result.times), 1)}-${fixed(Math.max(...result.times), 1)}); html ${result.htmlBytes} bytes, text ${result.textBytes} bytes`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
