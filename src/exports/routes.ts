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

const dayMs = 86_400_000;
const exportFormats: readonly ExportFormat[] = ['ndjson', 'csv'];
const contentTypes: Record<ExportFormat, string> = { ndjson: 'application/x-ndjson; charset=utf-8', csv: 'text/csv; charset=utf-8' };

export function parseExportFormat(query: QueryValues): ExportFormat {
  const text = single(query, 'format') ?? 'ndjson';
  if (!(exportFormats as readonly string[]).includes(text)) {
    throw ApiError.invalidParam([{ path: '/query/format', message: `must be one of ${exportFormats.join(', ')}` }], 'format is not an export format');
  }
  return text as ExportFormat;
}

export function mountExports(app: H3, context: AppContext): void {
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/export',
    versionedOnly: true,
    refusals: refusals(needsCredential, namedInPath, dateRangeRefusals),
    summary: "The site's stored events of a UTC day range, streamed: ndjson ({ ...derived fields, raw }) or csv (the derived fields)",
    produces: ['application/x-ndjson', 'text/csv'],
    query: [
      { name: 'from', description: 'First day, YYYY-MM-DD (UTC), inclusive', required: true, schema: { type: 'string', format: 'date' } },
      { name: 'to', description: 'Last day, YYYY-MM-DD (UTC), inclusive', required: true, schema: { type: 'string', format: 'date' } },
      { name: 'format', description: 'ndjson (default) or csv', schema: { type: 'string', enum: [...exportFormats] } },
    ],
    handler: (event) => {
      const { site } = resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'admin' });
      const query = getQuery(event) as QueryValues;
      const { range } = parseDateRange(query);
      const format = parseExportFormat(query);
      const body = exportStream(context.db, { siteId: site.id, fromMs: range.fromDay * dayMs, toMs: (range.toDay + 1) * dayMs }, format);
      const filename = `${site.id}-${query.from as string}-${query.to as string}.${format}`;
      return new Response(body, {
        status: 200,
        headers: { 'content-type': contentTypes[format], 'content-disposition': `attachment; filename="${filename}"`, 'cache-control': 'no-store' },
      });
    },
  });
}
