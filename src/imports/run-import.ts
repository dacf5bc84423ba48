// Runs one import job: a first pass reads and checks the whole file (nothing is stored when any row is bad, and the
// first 100 errors are kept with their line numbers); a second pass reads it again and stores its events through
// the ingest write queue in batches (group commit, dedup by id), recording each batch's seq range. Both passes
// stream, so memory stays bounded whatever the file's size (docs/import-export.md).
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
import { toStoredEvent } from './to-stored-event.ts';
import { type ImportProgress, updateImportProgress } from './queries/import-rows.ts';
import { insertImportEventRange } from './queries/import-event-ranges.ts';
import { type ImportedFigure, readPlausibleZip } from './formats/plausible-csv.ts';
import { importedDaysOfImport, upsertImportedDaily } from './queries/imported-daily-rows.ts';
import { parseDateText } from '../vocabulary/periods.ts';

/** Errors kept in the status answer (CONTRACT section 11). */
export const maxReportedErrors = 100;
/** Events per write-queue batch: one group commit each (the queue's own cap per commit). */
export const importBatchSize = 2_000;
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
  afterBatch?: (lastSeq: number) => void;
  /** Events (or Plausible rows) stored per batch; importBatchSize by default. */
  batchSize?: number;
  /** True once the process is stopping: the job fails at its next batch (what it stored stays, and can be deleted). */
  stopping?: () => boolean;
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
    const errors = await validateFile(deps, job, reader, progress, save);
    if (errors.length > 0) {
      progress.errors = JSON.stringify(errors);
      return finish(progress, 'failed', save, clock.now());
    }
    progress.phase = 'storing';
    await storeFile(deps, job, reader, progress, save);
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

/** The first pass: every row read and checked, nothing stored; the first errors, in file order. */
async function validateFile(deps: ImportDeps, job: ImportJob, reader: SourceReader, progress: ImportProgress, save: () => void): Promise<{ line: number; message: string }[]> {
  const source = await openSource(job.path);
  const errors: { line: number; message: string }[] = [];
  for await (const row of reader(source.stream, { siteId: job.siteId })) {
    if (progress.rows_read % importBatchSize === 0 && deps.stopping?.()) throw new Error('interrupted: the process stopped');
    progress.rows_read++;
    const message = 'error' in row ? row.error : checkRow(row.event.wire, row.event.facts, deps.context.clock.now());
    if (message !== undefined && errors.length < maxReportedErrors) errors.push({ line: row.line, message });
    if (progress.rows_read % progressEveryRows === 0) {
      progress.bytes_read = source.bytesRead();
      save();
    }
  }
  progress.bytes_read = source.bytesRead();
  return errors;
}

function checkRow(wire: Record<string, unknown>, facts: Parameters<typeof toStoredEvent>[1], nowMs: number): string | undefined {
  const result = toStoredEvent(wire, facts, nowMs);
  return result.ok ? undefined : result.message;
}

/** The second pass: the same rows, now valid, stored a batch at a time; the file may not change in between. */
async function storeFile(deps: ImportDeps, job: ImportJob, reader: SourceReader, progress: ImportProgress, save: () => void): Promise<void> {
  const { db, clock } = deps.context;
  const source = await openSource(job.path);
  const days = new Set<number>();
  let batch: StoredEventInput[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const result = await submitWhenRoom(deps.writeQueue, batch);
    batch = [];
    progress.events_imported += result.accepted;
    progress.duplicates += result.duplicates;
    if (result.firstSeq && result.lastSeq) {
      const range = { first_seq: result.firstSeq, last_seq: result.lastSeq };
      insertImportEventRange(db, { import_id: job.id, ...range });
      for (const day of daysInSeqRange(db, { site_id: job.siteId, ...range })) days.add(day);
      progress.days_imported = days.size;
    }
    progress.bytes_read = source.bytesRead();
    save();
    deps.afterBatch?.(result.lastSeq ?? 0);
  };
  for await (const row of reader(source.stream, { siteId: job.siteId })) {
    if ('error' in row) throw new Error(`line ${row.line} ${row.error} (the file changed after it was checked)`);
    const result = toStoredEvent(row.event.wire, row.event.facts, clock.now());
    if (!result.ok) throw new Error(`line ${row.line}: ${result.message} (the file changed after it was checked)`);
    batch.push(result.stored);
    if (batch.length >= (deps.batchSize ?? importBatchSize)) {
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
