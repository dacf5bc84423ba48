// Site actions shared by the HTTP routes and the CLI: create, list, delete (with all of the site's data).
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { afterParams, decodePageCursor, toPage } from '../http/pagination.ts';
import { TrimmedName } from '../http/validate.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import type { WorkspaceRow } from './queries/find-workspace.ts';
import { findSite, type SiteRow } from './queries/find-site.ts';
import { listSiteRows } from './queries/list-sites.ts';
import { deleteSiteRow, insertSite } from './queries/site-writes.ts';
import { removeSiteData } from './site-data.ts';
import { forgetCookielessSetting } from '../visitors/cookieless-ids.ts';
import { writeCookieless } from '../visitors/queries/site-cookieless.ts';

export const SiteId = v.pipe(v.string('must be a string'), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must match ^[A-Za-z0-9_-]{1,64}$'));

/** cookieless: on unless told otherwise for a new site (docs/tracker.md); the sites made before it existed keep it off. */
export const CreateSiteBody = v.object({ id: SiteId, name: TrimmedName, cookieless: v.optional(v.boolean('must be a boolean'), true) });
export type CreateSiteInput = v.InferOutput<typeof CreateSiteBody>;
/** The settings a site's owner may change after creation. */
export const UpdateSiteBody = v.object({ cookieless: v.optional(v.boolean('must be a boolean')) });
export type UpdateSiteInput = v.InferOutput<typeof UpdateSiteBody>;

export interface Site {
  id: string;
  name: string;
  created_at: string;
  cookieless: boolean;
}

export function toSite(row: SiteRow): Site {
  return { id: row.id, name: row.name, created_at: row.created_at, cookieless: row.cookieless === 1 };
}

/** Site ids are unique across workspaces (they are the legacy bearer): a taken id is 409 site_id_taken. */
export function createSite(context: AppContext, actor: Actor, workspace: WorkspaceRow, input: CreateSiteInput): Site {
  return inWriteTransaction(context.db, () => {
    if (findSite(context.db, input.id)) throw ApiError.conflict('site_id_taken', `The site id ${input.id} is taken`);
    const row: SiteRow = { id: input.id, workspace_id: workspace.id, name: input.name, created_at: toIso(context.clock.now()), cookieless: input.cookieless ? 1 : 0 };
    insertSite(context.db, row);
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'site.create', target: row.id, metadata: { name: row.name, cookieless: input.cookieless } });
    return toSite(row);
  });
}

export function listSites(context: AppContext, workspace: WorkspaceRow, limit: number, cursor?: string): { sites: Site[]; next_cursor: string | null } {
  const rows = listSiteRows(context.db, { workspaceId: workspace.id, ...afterParams(decodePageCursor(cursor)), limit: limit + 1 });
  const page = toPage(rows, limit);
  return { sites: page.rows.map(toSite), next_cursor: page.nextCursor };
}

/** Changes a site's settings (audited as site.update with the new values); a site of another workspace is a 404. */
export function updateSite(context: AppContext, actor: Actor, workspace: WorkspaceRow, siteId: string, input: UpdateSiteInput): Site {
  return inWriteTransaction(context.db, () => {
    const site = findSite(context.db, siteId);
    if (!site || site.workspace_id !== workspace.id) throw ApiError.notFound();
    if (input.cookieless !== undefined) {
      writeCookieless(context.db, site.id, input.cookieless);
      forgetCookielessSetting(context.db, site.id);
    }
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'site.update', target: site.id, metadata: { ...input } });
    return toSite(findSite(context.db, site.id)!);
  });
}

/** Deletes the site and every row derived from it in one transaction; a site of another workspace is a 404. */
export function deleteSite(context: AppContext, actor: Actor, workspace: WorkspaceRow, siteId: string): void {
  inWriteTransaction(context.db, () => {
    const site = findSite(context.db, siteId);
    if (!site || site.workspace_id !== workspace.id) throw ApiError.notFound();
    removeSiteData(context.db, site.id);
    deleteSiteRow(context.db, site.id);
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'site.delete', target: site.id, metadata: { name: site.name } });
  }, { eventLog: true });
}
