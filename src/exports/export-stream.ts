// GET /v1/sites/:siteId/export: the site's events of a day range as a stream, a page of rows read per pull, so
// memory stays bounded whatever the site holds and a slow client slows the reads (backpressure).
import type { Db } from '../db/open.ts';
import { listExportPage } from '../event-store/queries/export-events.ts';
import { csvHeader, toCsvLine, toNdjsonLine } from './event-lines.ts';

export type ExportFormat = 'ndjson' | 'csv';

/** Rows read per pull. */
export const exportPageRows = 1_000;

export interface ExportRange {
  siteId: string;
  fromMs: number;
  toMs: number;
}

/** The export's lines as text chunks (an async generator, also what the CLI writes to a file). */
export async function* exportChunks(db: Db, range: ExportRange, format: ExportFormat): AsyncGenerator<string> {
  if (format === 'csv') yield csvHeader;
  const toLine = format === 'csv' ? toCsvLine : toNdjsonLine;
  let afterTs = range.fromMs;
  let afterSeq = 0;
  for (;;) {
    const rows = listExportPage(db, { site_id: range.siteId, from_ms: range.fromMs, to_ms: range.toMs, after_ts: afterTs, after_seq: afterSeq, limit: exportPageRows });
    if (rows.length === 0) return;
    let chunk = '';
    for (const row of rows) chunk += toLine(row);
    yield chunk;
    const last = rows[rows.length - 1]!;
    afterTs = last.ts;
    afterSeq = last.seq;
    if (rows.length < exportPageRows) return;
  }
}

/** The same chunks as a web stream that reads a page only when the client has taken the previous one. */
export function exportStream(db: Db, range: ExportRange, format: ExportFormat): ReadableStream<Uint8Array> {
  const chunks = exportChunks(db, range, format);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  }, { highWaterMark: 1 });
}
