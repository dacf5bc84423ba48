// The SQLite side of `npm run bench -- clickhouse`: the reports benchmark's generator (bench/reports-workload.ts,
// with its analysis events: funnel steps and purchases) at N events, written through the ingest writer's commit and
// projected, in DIR/sqlite (kept and reused when DIR is given). Also the backlog the shipping rate is measured from.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { adminToken, call, startProcess, stopProcess, root } from './harness.mjs';
import { reportsWorkload, runWorkload } from './workload.mjs';

export const benchSite = 'bench';

/** Creates (or reuses) the SQLite data set; returns its directory, database path, and the load times (null when reused). */
export async function prepareSqliteData(dir, events) {
  const dataDir = join(dir, `sqlite-${events}`);
  const workload = { ...reportsWorkload(join(dataDir, 'sightline.db'), benchSite, events), analysis: true };
  if (existsSync(join(dataDir, 'done'))) return { dataDir, workload, reused: true };
  mkdirSync(dataDir, { recursive: true });
  const server = await startProcess(join(root, 'bin', 'sightline'), ['serve', '--port', '0'], { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken });
  await call(`${server.url}/workspaces`, 'POST', { name: 'Bench', slug: 'bench' });
  await call(`${server.url}/workspaces/bench/sites`, 'POST', { id: benchSite, name: 'Bench' });
  await stopProcess(server.child);
  const written = await runWorkload('write', workload);
  const projected = await runWorkload('project', { databasePath: workload.databasePath, batchEvents: 5000 });
  const { writeFileSync } = await import('node:fs');
  const loaded = { writtenMs: written.elapsedMs, projectedMs: projected.elapsedMs, events: projected.events };
  writeFileSync(join(dataDir, 'done'), JSON.stringify(loaded));
  return { dataDir, workload, reused: false, loaded };
}

// node bench/clickhouse-sqlite-data.mjs DIR EVENTS: prepares the data set alone (ahead of a benchmark run).
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const [dir, events] = process.argv.slice(2);
  const result = await prepareSqliteData(dir, Number(events));
  console.log(JSON.stringify(result));
}
