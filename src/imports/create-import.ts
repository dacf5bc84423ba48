// POST /v1/sites/:siteId/imports: the body (a file, possibly gzip) is streamed to DATA_DIR/imports/ within
// IMPORT_MAX_BYTES, the import row is created and audited (import.create), and the job is queued; the answer is 202.
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { H3Event } from 'h3';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { mediaTypeOf } from '../http/content-type.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { type ImportFormat, importFormats, isImportFormat } from './import-formats.ts';
import { insertImport } from './queries/import-rows.ts';

/** The media types an upload may be declared as (CONTRACT section 11). */
export const importMediaTypes = ['application/zip', 'text/csv', 'application/x-ndjson', 'application/gzip', 'application/x-gzip'] as const;

/** The format named by X-Import-Format: 400 when missing or unknown. */
export function importFormatOf(header: string | null): ImportFormat {
  if (header === null || !isImportFormat(header)) {
    throw ApiError.invalidParam([{ path: '/headers/x-import-format', message: `must be one of ${importFormats.join(', ')}` }], 'X-Import-Format is missing or unknown');
  }
  return header;
}

/** The request body as a Node stream, 413 when Content-Length or the bytes read pass `limitBytes`. */
function bodyStream(event: H3Event, limitBytes: number): Readable {
  const declared = event.req.headers.get('content-length');
  if (declared !== null && Number(declared) > limitBytes) throw ApiError.payloadTooLarge(limitBytes);
  const node = event.runtime?.node?.req;
  if (node instanceof IncomingMessage) return node;
  const body = event.req.body;
  return body ? Readable.fromWeb(body as import('node:stream/web').ReadableStream) : Readable.from([]);
}

/** Streams the upload to `path`; returns its size. An empty body is a 400; past the limit a 413 (the file is removed). */
async function saveUpload(event: H3Event, path: string, limitBytes: number): Promise<number> {
  let size = 0;
  const bound = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > limitBytes) done(ApiError.payloadTooLarge(limitBytes));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(bodyStream(event, limitBytes), bound, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await rm(path, { force: true });
    throw error instanceof ApiError ? error : new ApiError(400, 'invalid_request', 'The upload was interrupted');
  }
  if (size === 0) {
    await rm(path, { force: true });
    throw ApiError.invalidPayload([{ path: '', message: 'must not be empty' }], 'The file is empty');
  }
  return size;
}

export interface CreatedImport {
  id: string;
  format: ImportFormat;
  path: string;
}

export async function createImport(context: AppContext, actor: Actor, site: SiteRow, event: H3Event): Promise<CreatedImport> {
  const format = importFormatOf(event.req.headers.get('x-import-format'));
  const contentType = event.req.headers.get('content-type') ?? undefined;
  if (!(importMediaTypes as readonly string[]).includes(mediaTypeOf(contentType))) throw ApiError.unsupportedMediaType(importMediaTypes);
  const id = context.random.uuid();
  const directory = join(context.config.dataDir, 'imports');
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const path = join(directory, `${id}.upload`);
  const size = await saveUpload(event, path, context.config.importMaxBytes);
  recordNewImport(context, actor, site, { id, format, bytes: size });
  return { id, format, path };
}

/** The import's row (queued) and its audit row (import.create), in one transaction: the API's and the CLI's. */
export function recordNewImport(context: Pick<AppContext, 'db' | 'clock' | 'random'>, actor: Actor, site: SiteRow, file: { id: string; format: ImportFormat; bytes: number }): void {
  inWriteTransaction(context.db, () => {
    insertImport(context.db, { id: file.id, site_id: site.id, format: file.format, bytes_total: file.bytes, created_at: toIso(context.clock.now()) });
    recordAudit(context, { workspaceId: site.workspace_id, actor, action: 'import.create', target: file.id, metadata: { site_id: site.id, format: file.format, bytes: file.bytes } });
  });
}
