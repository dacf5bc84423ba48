// Runs one import job. The file is read once: every row is parsed, checked (the same wire schema as ingest) and turned
// into the event to store, which goes to an external sort by time (time-sorted-runs.ts); any bad row fails the job
// with the first 100 errors and their line numbers, and nothing is stored. A file without errors is then stored in
// time order through the ingest write queue in batches (group commit, dedup by id), recording each batch's seq
// range. Memory stays bounded whatever the file's size (docs/import-export.md).
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import type { WriteQueue } from '../ingest/write-queue.ts';
import { ApiError } from '../http/errors.ts';
import type { StoredEventInput } from '../event-store/stored-event.ts';
import { daysInSeqRange } from '../event-store/queries/seq-range-events.ts';
import type { ImportFormat, SourceReader } from './import-formats.ts';
import { readGa4BigQuery } from './formats/ga4-bigquery.ts';
import { readGoatCounterCsv } from './formats/goatcounter-csv.ts';
import { loadUmamiZipEventData, readUmamiCsv, readUmamiZip } from './formats/umami-csv.ts';
import type { UmamiEventData } from './formats/umami-event-data.ts';
import { isZipFile, openSource } from './source-file.ts';
import { TimeSortedRuns } from './time-sorted-runs.ts';
import { toStoredEvent } from './to-stored-event.ts';
import { type ImportProgress, updateImportProgress } from './queries/import-rows.ts';
import { insertImportEventRange } from './queries/import-event-ranges.ts';
import { type ImportedFigure, readPlausibleZip } from './formats/plausible-csv.ts';
import { importedDaysOfImport, upsertImportedDaily } from './queries/imported-daily-rows.ts';
import { parseDateText } from '../vocabulary/periods.ts';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Errors kept in the status answer (CONTRACT section 11). */
export const maxReportedErrors = 100;
/** Events per write-queue batch: one group commit each (the queue's own cap per commit). */
export const importBatchSize = 2_000;
const dayMs = 86_400_000;
/** Rows between two progress updates of the imports row. */
const progressEveryRows = 20_000;

const readers: Partial<Record<ImportFormat, SourceReader>> = {
  'umami-csv': readUmamiCsv,
  'goatcounter-csv': readGoatCounterCsv,
  'ga4-bigquery': readGa4BigQuery,
};

export interface ImportJob {
  id: string;
  siteId: string;
  format: ImportFormat;
  /** The file (or the upload's copy of it). */
  path: string;
}

export interface ImportDeps {
  context: Pick<AppContext, 'db' | 'clock'>;
  writeQueue: Pick<WriteQueue, 'submit'>;
  /** Told after each progress update (the CLI's progress bar). */
  onProgress?: (progress: ImportProgress) => void;
  /**
   * After each stored batch. The CLI projects there (a server's projector thread keeps pace by itself), so the
   * writer's dedup tail, which holds the events not yet indexed by the projector, stays short.
   */
  afterBatch?: (lastSeq: number, stored: number) => void;
  /** Events (or Plausible rows) stored per batch; importBatchSize by default. */
  batchSize?: number;
  /** True once the process is stopping: the job fails at its next batch (what it stored stays, and can be deleted). */
  stopping?: () => boolean;
  /** Where the time sort writes its runs (a directory of the job's own is made in it); see scratchDirectoryOf. */
  scratchDirectory?: string;
  /** Bytes of events the time sort holds in memory before writing a run (tests make it small). */
  sortRunBytes?: number;
}

/** The imports directory beside sightline.db (DATA_DIR/imports, where uploads go), or the system's for an in-memory one. */
export function scratchDirectoryOf(db: Pick<AppContext['db'], 'name' | 'memory'>): string {
  return db.memory || db.name === '' ? tmpdir() : join(dirname(db.name), 'imports');
}

/** Resolves with the job's final progress; never rejects (a failure is the job's status). */
export async function runImport(deps: ImportDeps, job: ImportJob): Promise<ImportProgress> {
  const { db, clock } = deps.context;
  const progress: ImportProgress = {
    id: job.id, status: 'running', phase: 'validating', rows_read: 0, events_imported: 0, duplicates: 0, days_imported: 0,
    bytes_read: 0, errors: '[]', started_at: toIso(clock.now()), finished_at: null,
  };
  const save = () => {
    updateImportProgress(db, progress);
    deps.onProgress?.(progress);
  };
  save();
  let eventData: UmamiEventData | undefined;
  try {
    if (job.format === 'plausible-csv') return await runAggregateImport(deps, job, progress, save);
    let reader = readers[job.format];
    if (!reader) throw new Error(`the ${job.format} format is not read by this version`);
    if (job.format === 'umami-csv' && (await isZipFile(job.path))) {
      // A zip of website_event and event_data: the properties are loaded first, for the two passes to look up.
      const source = await openSource(job.path);
      const loaded = await loadUmamiZipEventData(source.stream, maxReportedErrors, () => {
        if (++progress.rows_read % progressEveryRows !== 0) return;
        progress.bytes_read = source.bytesRead();
        save();
      });
      if (loaded.errors.length > 0) {
        progress.errors = JSON.stringify(loaded.errors);
        return finish(progress, 'failed', save, clock.now());
      }
      eventData = loaded.lookup;
      reader = (input, options) => readUmamiZip(input, { ...options, propsOf: eventData?.propsOf });
    }
    const runs = new TimeSortedRuns(join(deps.scratchDirectory ?? scratchDirectoryOf(db), `${job.id}.sort`), deps.sortRunBytes);
    try {
      const errors = await checkFile(deps, job, reader, progress, save, runs);
      eventData?.close();
      eventData = undefined;
      if (errors.length > 0) {
        progress.errors = JSON.stringify(errors);
        return finish(progress, 'failed', save, clock.now());
      }
      progress.phase = 'storing';
      save();
      await storeInTimeOrder(deps, job, runs, progress, save);
    } finally {
      runs.close();
    }
    return finish(progress, 'done', save, clock.now());
  } catch (error) {
    progress.errors = JSON.stringify([...JSON.parse(progress.errors), { line: 0, message: error instanceof Error ? error.message : String(error) }].slice(0, maxReportedErrors));
    try {
      return finish(progress, 'failed', save, clock.now());
    } catch {
      // The database is gone (the process is stopping): nothing more can be recorded.
      return progress;
    }
  } finally {
    eventData?.close();
  }
}

/** Plausible's zip: its rows checked in a first pass, then stored as imported daily figures (no events). */
async function runAggregateImport(deps: ImportDeps, job: ImportJob, progress: ImportProgress, save: () => void): Promise<ImportProgress> {
  const { db, clock } = deps.context;
  const errors: { line: number; message: string }[] = [];
  const checking = await openSource(job.path);
  for await (const row of readPlausibleZip(checking.stream, { siteId: job.siteId })) {
    progress.rows_read++;
    if ('error' in row && errors.length < maxReportedErrors) errors.push({ line: row.line, message: `${row.file}${row.file ? ': ' : ''}${row.error}` });
    if (progress.rows_read % progressEveryRows === 0) {
      progress.bytes_read = checking.bytesRead();
      save();
    }
  }
  progress.bytes_read = checking.bytesRead();
  if (errors.length > 0) {
    progress.errors = JSON.stringify(errors);
    return finish(progress, 'failed', save, clock.now());
  }
  progress.phase = 'storing';
  const storing = await openSource(job.path);
  let batch: ImportedFigure[][] = [];
  const store = db.transaction((rows: ImportedFigure[][]) => {
    for (const figures of rows) {
      let stored = false;
      for (const figure of figures) {
        const day = parseDateText(figure.day)!;
        stored = upsertImportedDaily(db, { site_id: job.siteId, import_id: job.id, ...figure, day }) || stored;
      }
      if (stored) progress.events_imported++;
      else progress.duplicates++;
    }
  });
  const flush = () => {
    store(batch);
    batch = [];
    progress.days_imported = importedDaysOfImport(db, job.id);
    progress.bytes_read = storing.bytesRead();
    save();
  };
  for await (const row of readPlausibleZip(storing.stream, { siteId: job.siteId })) {
    if ('error' in row) throw new Error(`${row.file} line ${row.line} ${row.error} (the file changed after it was checked)`);
    batch.push(row.figures);
    if (batch.length >= (deps.batchSize ?? importBatchSize)) flush();
  }
  flush();
  return finish(progress, 'done', save, clock.now());
}

function finish(progress: ImportProgress, status: 'done' | 'failed', save: () => void, nowMs: number): ImportProgress {
  progress.status = status;
  progress.phase = null;
  progress.finished_at = toIso(nowMs);
  save();
  return progress;
}

/**
 * The only pass over the file: every row read, checked and turned into its stored event, which the time sort keeps;
 * after the first error nothing more is kept (nothing will be stored), the rows are only checked. The first errors,
 * in file order.
 */
async function checkFile(deps: ImportDeps, job: ImportJob, reader: SourceReader, progress: ImportProgress, save: () => void, runs: TimeSortedRuns): Promise<{ line: number; message: string }[]> {
  const source = await openSource(job.path);
  const errors: { line: number; message: string }[] = [];
  // Judged against the job's start: the clock read once, not per row.
  const nowMs = deps.context.clock.now();
  for await (const row of reader(source.stream, { siteId: job.siteId })) {
    if (progress.rows_read % importBatchSize === 0 && deps.stopping?.()) throw new Error('interrupted: the process stopped');
    progress.rows_read++;
    let message: string | undefined;
    if ('error' in row) message = row.error;
    else {
      const result = toStoredEvent(row.event.wire, row.event.facts, nowMs);
      if (!result.ok) message = result.message;
      else if (errors.length === 0) runs.add(result.stored);
    }
    if (message !== undefined && errors.length < maxReportedErrors) errors.push({ line: row.line, message });
    if (progress.rows_read % progressEveryRows === 0) {
      progress.bytes_read = source.bytesRead();
      save();
    }
  }
  progress.bytes_read = source.bytesRead();
  return errors;
}

/** The checked events, in time order, stored a batch at a time; each batch's seq range recorded for DELETE. */
async function storeInTimeOrder(deps: ImportDeps, job: ImportJob, runs: TimeSortedRuns, progress: ImportProgress, save: () => void): Promise<void> {
  const { db } = deps.context;
  const days = new Set<number>();
  const batchSize = deps.batchSize ?? importBatchSize;
  let batch: StoredEventInput[] = [];
  let saved = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const stored = batch;
    batch = [];
    const result = await submitWhenRoom(deps.writeQueue, stored);
    progress.events_imported += result.accepted;
    progress.duplicates += result.duplicates;
    if (result.firstSeq && result.lastSeq) {
      const range = { first_seq: result.firstSeq, last_seq: result.lastSeq };
      insertImportEventRange(db, { import_id: job.id, ...range });
      // All stored: their days are the batch's own; else those of the rows stored, read back.
      if (result.accepted === stored.length) for (const event of stored) days.add(Math.floor(event.ts / dayMs));
      else for (const day of daysInSeqRange(db, { site_id: job.siteId, ...range })) days.add(day);
      progress.days_imported = days.size;
    }
    const done = progress.events_imported + progress.duplicates;
    if (done - saved >= progressEveryRows) {
      saved = done;
      save();
    }
    deps.afterBatch?.(result.lastSeq ?? 0, result.accepted);
  };
  for (const event of runs.sorted()) {
    batch.push(event);
    if (batch.length >= batchSize) {
      if (deps.stopping?.()) throw new Error('interrupted: the process stopped (the events stored so far are kept: delete the import to remove them)');
      await flush();
    }
  }
  await flush();
}
/** The write queue refuses with 503 while live ingest fills it: an import waits for room instead of failing. */
async function submitWhenRoom(queue: Pick<WriteQueue, 'submit'>, events: StoredEventInput[]) {
  for (;;) {
    try {
      return await queue.submit({ events, quarantined: [] });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 503 || error.message.includes('shutting down')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
