// The answer schemas of the import endpoints, defined once: they type the handlers and are published at GET
// /v1/schemas and in GET /v1/openapi.json (src/openapi/).
import * as v from 'valibot';
import { importFormats } from './import-formats.ts';
import type { ImportRow } from './queries/import-rows.ts';

const IsoTime = v.pipe(v.string(), v.isoTimestamp());

export const ImportErrorAnswer = v.strictObject({ line: v.pipe(v.number(), v.integer()), message: v.string() });

/** An import's status and progress (CONTRACT section 11, plus phase, duplicates and bytes for progress bars). */
export const ImportStatusAnswer = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  format: v.picklist(importFormats),
  status: v.picklist(['queued', 'running', 'done', 'failed']),
  phase: v.nullable(v.picklist(['validating', 'storing'])),
  rows_read: v.pipe(v.number(), v.integer()),
  events_imported: v.pipe(v.number(), v.integer()),
  duplicates: v.pipe(v.number(), v.integer()),
  days_imported: v.pipe(v.number(), v.integer()),
  bytes_read: v.pipe(v.number(), v.integer()),
  bytes_total: v.nullable(v.pipe(v.number(), v.integer())),
  errors: v.array(ImportErrorAnswer),
  created_at: IsoTime,
  started_at: v.nullable(IsoTime),
  finished_at: v.nullable(IsoTime),
});

export const ImportCreatedAnswer = v.strictObject({ id: v.pipe(v.string(), v.uuid()), status: v.literal('queued') });

export const ImportListAnswer = v.strictObject({ imports: v.array(ImportStatusAnswer) });

export const ImportDeleteAnswer = v.strictObject({ id: v.pipe(v.string(), v.uuid()), deleted_events: v.pipe(v.number(), v.integer()) });

export function toImportStatus(row: ImportRow): v.InferOutput<typeof ImportStatusAnswer> {
  return {
    id: row.id,
    format: row.format,
    status: row.status,
    phase: row.phase,
    rows_read: row.rows_read,
    events_imported: row.events_imported,
    duplicates: row.duplicates,
    days_imported: row.days_imported,
    bytes_read: row.bytes_read,
    bytes_total: row.bytes_total,
    errors: JSON.parse(row.errors) as { line: number; message: string }[],
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}
