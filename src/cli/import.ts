// `sightline import FORMAT --site S FILE`: a file of another analytics tool imported into a site by the same job as
// POST /v1/sites/:siteId/imports (check the whole file, then store through a write queue of its own), with a
// progress bar; what it stores is projected as it goes, so reports count it when the command ends.
import { statSync } from 'node:fs';
import { defineCommand } from 'citty';
import { SingleBar } from 'cli-progress';
import { batchSubscribers } from '../batch-subscribers.ts';
import { ApiError } from '../http/errors.ts';
import { createIngestService } from '../ingest/service.ts';
import { createAppMetrics } from '../metrics/app-metrics.ts';
import { projectBatch } from '../projector/project-batch.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import { importFormatOf, recordNewImport } from '../imports/create-import.ts';
import { importFormats } from '../imports/import-formats.ts';
import type { ImportProgress } from '../imports/queries/import-rows.ts';
import { runImport } from '../imports/run-import.ts';
import type { AppContext } from '../context.ts';
import { eventLogSchema } from '../db/open.ts';
import { commonArgs, output, runCommandSafely, systemActor, withContext } from './common.ts';

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    throw new Error(`Cannot read ${path}`);
  }
}

/** Projects every stored event not yet projected (safe beside a running server: each batch holds the write lock). */
function projectAll(context: AppContext): void {
  while (projectBatch(context.db, { maxEvents: 5_000, now: context.clock.now(), subscribers: batchSubscribers }).events > 0);
}

/**
 * Events per commit of the command's own write queue: no live traffic waits behind this process's commits for long
 * (a server beside it has its own queue and waits for the lock at most one commit), and fewer, larger transactions
 * store faster (one per 5,000 events, not per 2,000 as ingest); the projection after each keeps the dedup's
 * in-memory tail, and the events in flight, at most this long.
 */
export const cliEventsPerCommit = 5_000;

/**
 * Page cache of each file of the command's connection while it imports (16 MiB by default): once the files outgrow
 * them the caches are full, and their 16 MiB saved keeps a multi-gigabyte import's RSS further from 250 MB.
 */
const importCacheMiB = 8;

/** Seconds spent in each phase (the benchmark prints them apart: bench/import.mjs). */
interface PhaseTimes {
  checking_s: number;
  storing_s: number;
  projecting_s: number;
}

function progressBar(total: number): { update(progress: ImportProgress): void; stop(): void } {
  // On a terminal only (stderr): redirected output stays clean.
  if (!process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar({ format: '{phase} [{bar}] {percentage}% | {rows} rows | {events} events stored', hideCursor: true });
  bar.start(total, 0, { phase: 'checking', rows: 0, events: 0 });
  let storing = false;
  return {
    update: (progress) => {
      const payload = { phase: progress.phase === 'storing' ? 'storing ' : 'checking', rows: progress.rows_read, events: progress.events_imported };
      if (progress.phase !== 'storing') return bar.update(progress.bytes_read, payload);
      // The file is read whole while checking; storing goes through its rows (every row of an event format is one event).
      if (!storing) {
        storing = true;
        bar.setTotal(Math.max(progress.rows_read, 1));
      }
      bar.update(progress.events_imported + progress.duplicates, payload);
    },
    stop: () => bar.stop(),
  };
}

export const importCommand = defineCommand({
  meta: { name: 'import', description: `Import a file of another analytics tool into a site (FORMAT: ${importFormats.join(', ')}; plain or gzip, a zip for plausible-csv, and for umami-csv a zip of website_event.csv and event_data.csv to bring properties)` },
  args: {
    ...commonArgs,
    format: { type: 'positional', description: 'The file\'s format', required: true },
    site: { type: 'string', description: 'Site id', required: true },
    file: { type: 'positional', description: 'The file', required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, async (context) => {
        const format = importFormatOf(args.format);
        const site = findSite(context.db, args.site);
        if (!site) throw ApiError.notFound(`No site ${args.site}`);
        const bytes = fileSize(args.file);
        for (const schema of ['main', eventLogSchema]) context.db.pragma(`${schema}.cache_size = ${-1024 * importCacheMiB}`);
        const id = context.random.uuid();
        recordNewImport(context, systemActor, site, { id, format, bytes });
        const ingest = createIngestService(context, createAppMetrics(context.db), {
          writer: 'inline',
          writeQueue: { maxEventsPerCommit: cliEventsPerCommit, maxPendingEvents: 4 * cliEventsPerCommit },
        });
        const bar = progressBar(bytes);
        const times: PhaseTimes = { checking_s: 0, storing_s: 0, projecting_s: 0 };
        // CPU seconds of the process per phase too: far steadier than wall time on a shared machine.
        const cpu: PhaseTimes = { checking_s: 0, storing_s: 0, projecting_s: 0 };
        const cpuNow = () => {
          const usage = process.cpuUsage();
          return (usage.user + usage.system) / 1e6;
        };
        let phaseStarted = performance.now();
        let phaseCpuStarted = cpuNow();
        let checking = true;
        const project = () => {
          const started = performance.now();
          const cpuStarted = cpuNow();
          projectAll(context);
          times.projecting_s += (performance.now() - started) / 1000;
          cpu.projecting_s += cpuNow() - cpuStarted;
          // The writer's connection never checkpoints by itself (no server's timer runs here): without this the event
          // log's WAL would grow by the whole import.
          ingest.writeQueue.finishCheckpoint();
        };
        const onProgress = (progress: ImportProgress) => {
          bar.update(progress);
          if (checking && progress.phase !== 'validating') {
            checking = false;
            times.checking_s = (performance.now() - phaseStarted) / 1000;
            cpu.checking_s = cpuNow() - phaseCpuStarted;
            phaseStarted = performance.now();
            phaseCpuStarted = cpuNow();
          }
        };
        let result: ImportProgress;
        try {
          result = await runImport({ context, writeQueue: ingest.writeQueue, onProgress, afterBatch: project, batchSize: cliEventsPerCommit }, { id, siteId: site.id, format, path: args.file });
        } finally {
          bar.stop();
          await ingest.writeQueue.drain();
          ingest.cookieless.stop();
        }
        project();
        // Storing: the second pass, less the projections run between its batches.
        if (!checking) {
          times.storing_s = (performance.now() - phaseStarted) / 1000 - times.projecting_s;
          cpu.storing_s = cpuNow() - phaseCpuStarted - cpu.projecting_s;
        }
        const seconds = { checking_s: round(times.checking_s), storing_s: round(times.storing_s), projecting_s: round(times.projecting_s) };
        const cpuSeconds = { checking_s: round(cpu.checking_s), storing_s: round(cpu.storing_s), projecting_s: round(cpu.projecting_s) };
        const errors = JSON.parse(result.errors) as { line: number; message: string }[];
        const answer = { id, format, status: result.status, rows_read: result.rows_read, events_imported: result.events_imported, duplicates: result.duplicates, days_imported: result.days_imported, errors, seconds, cpu_seconds: cpuSeconds };
        if (result.status === 'failed') {
          process.exitCode = 1;
          if (args.json) output(args, answer, () => '');
          else process.stderr.write(`Import failed: ${result.events_imported === 0 ? 'nothing was imported' : `${result.events_imported} events were stored before it stopped (sightline's DELETE of import ${id} removes them)`}\n${errors.map((error) => `  line ${error.line}: ${error.message}`).join('\n')}\n`);
          return;
        }
        output(args, answer, () => `Imported ${result.events_imported} events of ${result.rows_read} rows into ${site.id} (${result.duplicates} already there; ${result.days_imported} days) as import ${id}`);
      }),
    ),
});
