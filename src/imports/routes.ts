// Imports of a site (CONTRACT section 11): upload (202, then a job), status, list, delete. The admin token or an
// admin-scoped key of the site's workspace; a site of another workspace, or an import of another site, answers the
// same 404 as a missing one (structured envelope).
import type { H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { actorOf } from '../audit/record-audit.ts';
import { resolveSite } from '../access/resolve-access.ts';
import { ApiError } from '../http/errors.ts';
import { pathParam } from '../http/path-params.ts';
import { namedInPath, needsCredential, refusals } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import { ImportCreatedAnswer, ImportDeleteAnswer, ImportListAnswer, ImportStatusAnswer, toImportStatus } from './answers.ts';
import { createImport } from './create-import.ts';
import { deleteImport } from './delete-import.ts';
import type { ImportRunner } from './import-runner.ts';
import { findImport, listImportsOfSite } from './queries/import-rows.ts';

const noStore = { 'cache-control': 'no-store' };

/** The newest imports a list answers. */
export const maxListedImports = 100;

export function mountImports(app: H3, context: AppContext, runner: ImportRunner): void {
  addRoute(app, {
    method: 'POST',
    path: '/sites/:siteId/imports',
    versionedOnly: true,
    status: 202,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, { 400: ['invalid_param', 'invalid_payload', 'invalid_request'], 413: ['payload_too_large'], 415: ['unsupported_media_type'] }),
    summary: 'Import a file of another analytics tool (X-Import-Format: umami-csv, goatcounter-csv, ga4-bigquery, plain or gzip, or plausible-csv; a zip of website_event and event_data for Umami with properties): 202, then a job',
    answer: ImportCreatedAnswer,
    handler: async (event) => {
      const { caller, site } = resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'admin' });
      const created = await createImport(context, actorOf(caller), site, event);
      runner.enqueue({ id: created.id, siteId: site.id, format: created.format, path: created.path, removeFileAfter: true });
      return { id: created.id, status: 'queued' as const };
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/imports',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: `The site's imports, newest first (at most ${maxListedImports})`,
    answer: ImportListAnswer,
    handler: (event) => {
      const { site } = resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'admin' });
      return { imports: listImportsOfSite(context.db, site.id, maxListedImports).map(toImportStatus) };
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/sites/:siteId/imports/:importId',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: "An import's status and progress, with its first 100 errors (line numbers of the file, the header being line 1)",
    answer: ImportStatusAnswer,
    handler: (event) => {
      const { site } = resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'admin' });
      const row = findImport(context.db, site.id, pathParam(event, 'importId'));
      if (!row) throw ApiError.notFound();
      return toImportStatus(row);
    },
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/sites/:siteId/imports/:importId',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, { 409: ['import_running'] }),
    summary: 'Delete an import whole: its events, and their share of every report',
    answer: ImportDeleteAnswer,
    handler: (event) => {
      const { caller, site } = resolveSite(event, context, pathParam(event, 'siteId'), { scope: 'admin' });
      return deleteImport(context, actorOf(caller), site, pathParam(event, 'importId'));
    },
  });
}
