// POST /sites/:siteId/sourcemaps: stores the checked map gzip-compressed (off the event loop, on libuv's pool), as
// an idempotent upsert on (site, release, file).
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { findSite, type SiteRow } from '../tenants/queries/find-site.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { upsertSourcemap } from './queries/sourcemap-rows.ts';
import type { CheckedUpload } from './upload-body.ts';

const gzipAsync = promisify(gzip);

/**
 * @example await uploadSourcemap(context, site, checkUpload(body)) // → { size: 18234 }
 */
export async function uploadSourcemap(context: AppContext, site: SiteRow, upload: CheckedUpload): Promise<{ size: number }> {
  const compressed = await gzipAsync(upload.bytes);
  const sha256 = createHash('sha256').update(upload.bytes).digest('hex');
  inWriteTransaction(context.db, () => {
    // The site may have been deleted while the map was compressed: its maps must not outlive it.
    if (!findSite(context.db, site.id)) throw ApiError.unauthorized();
    upsertSourcemap(context.db, {
      site_id: site.id,
      release: upload.release,
      file: upload.file,
      size: upload.bytes.length,
      sha256,
      mappings_length: upload.mappingsLength,
      map_gzip: compressed,
      uploaded_at: toIso(context.clock.now()),
    });
  });
  return { size: upload.bytes.length };
}
