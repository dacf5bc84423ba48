// GET /v1/sites/:siteId/export?from&to&format (CONTRACT section 11): the site's stored events of a UTC day range,
// streamed as ndjson (derived fields and the raw event received) or csv (the derived fields). The admin token or an
// admin-scoped key of the site's workspace; another workspace's site answers 404 (structured envelope).
import { getQuery, type H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { ApiError } from '../http/errors.ts';
import { pathParam } from '../http/path-params.ts';
import { namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import { parseDateRange, type QueryValues, single } from '../reading/common-params.ts';
import { dateRangeRefusals } from '../reading/common-param-errors.ts';
import { type ExportFormat, exportStream } from './export-stream.ts';
import { plausibleZipChunks } from './plausible-zip.ts';
import type { ReadModel } from '../read-model/read-model.ts';

const dayMs = 86_400_000;
type AnyExportFormat = ExportFormat | 'plausible-csv';
const exportFormats: readonly AnyExportFormat[] = ['ndjson', 'csv', 'plausible-csv'];
const contentTypes: Record<AnyExportFormat, string> = { ndjson: 'application/x-ndjson; charset=utf-8', csv: 'text/csv; charset=utf-8', 'plausible-csv': 'application/zip' };
const extensions: Record<AnyExportFormat, string> = { ndjson: 'ndjson', csv: 'csv', 'plausible-csv': 'zip' };

/** A stream of an async generator's chunks, one read each time the client has taken the previous one. */
function streamOf(chunks: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return(undefined);
    },
  }, { highWaterMark: 1 });
}

export function parseExportFormat(query: QueryValues): AnyExportFormat {
  const text = single(query, 'format') ?? 'ndjson';
  if (!(exportFormats as readonly string[]).includes(text)) {
    throw ApiError.invalidParam([{ path: '/query/format', message: `must be one of ${exportFormats.join(', ')}` }], 'format is not an export format');
  }
  return text as AnyExportFormat;
}

export function mountExports(app: H3, context: AppContext, readModel: ReadModel): void {
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/export',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, dateRangeRefusals),
    summary: "The site's stored events of a UTC day range, streamed: ndjson ({ ...derived fields, raw }), csv (the derived fields) or plausible-csv (a zip in Plausible's import layout)",
    produces: ['application/x-ndjson', 'text/csv', 'application/zip'],
    query: [
      { name: 'from', description: 'First day, YYYY-MM-DD (UTC), inclusive', required: true, schema: { type: 'string', format: 'date' } },
      { name: 'to', description: 'Last day, YYYY-MM-DD (UTC), inclusive', required: true, schema: { type: 'string', format: 'date' } },
      { name: 'format', description: 'ndjson (default), csv or plausible-csv', schema: { type: 'string', enum: [...exportFormats] } },
    ],
    handler: (event) => {
      const { site } = resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'admin' });
      const query = getQuery(event) as QueryValues;
      const { range } = parseDateRange(query);
      const format = parseExportFormat(query);
      const body =
        format === 'plausible-csv'
          ? streamOf(plausibleZipChunks(readModel, { siteIds: [site.id], workspaceId: site.workspace_id }, range))
          : exportStream(context.db, { siteId: site.id, fromMs: range.fromDay * dayMs, toMs: (range.toDay + 1) * dayMs }, format);
      const filename = `${site.id}-${query.from as string}-${query.to as string}.${extensions[format]}`;
      return new Response(body, {
        status: 200,
        headers: { 'content-type': contentTypes[format], 'content-disposition': `attachment; filename="${filename}"`, 'cache-control': 'no-store' },
      });
    },
  });
}
