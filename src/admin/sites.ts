// Site actions shared by the HTTP routes and the CLI: create, list, read and update the settings (name, cookieless
// visitors, retention period), delete (with all of the site's data).
import * as v from 'valibot';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { afterParams, decodePageCursor, toPage } from '../http/pagination.ts';
import { TrimmedName } from '../http/validate.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { findSite, type SiteRow } from '../tenants/queries/find-site.ts';
import { listSiteRows } from '../tenants/queries/list-sites.ts';
import { deleteSiteRow, insertSite, updateSiteRow } from '../tenants/queries/site-writes.ts';
import { removeSiteData } from '../tenants/site-data.ts';
import { forgetCookielessSetting } from '../visitors/cookieless-ids.ts';

export const SiteId = v.pipe(v.string('must be a string'), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must match ^[A-Za-z0-9_-]{1,64}$'));

/** The documented range of a retention period, in whole UTC days (docs/gdpr-and-retention.md); null keeps forever. */
export const retentionDaysRange = { min: 1, max: 3650 } as const;
export const RetentionDays = v.nullable(
  v.pipe(
    v.number('must be an integer or null'),
    v.integer('must be an integer or null'),
    v.minValue(retentionDaysRange.min, `must be at least ${retentionDaysRange.min}`),
    v.maxValue(retentionDaysRange.max, `must be at most ${retentionDaysRange.max}`),
  ),
);

/** cookieless: on unless told otherwise for a new site (docs/tracker.md); retention_days: forever unless told. */
export const CreateSiteBody = v.object({
  id: SiteId,
  name: TrimmedName,
  cookieless: v.optional(v.boolean('must be a boolean'), true),
  retention_days: v.optional(RetentionDays),
});
export type CreateSiteInput = v.InferOutput<typeof CreateSiteBody>;
/** A site and its settings, as every site answer shows it. */
export interface Site {
  id: string;
  name: string;
  created_at: string;
  cookieless: boolean;
  retention_days: number | null;
}

export function toSite(row: SiteRow): Site {
  return { id: row.id, name: row.name, created_at: row.created_at, cookieless: row.cookieless === 1, retention_days: row.retention_days };
}

/** PATCH body: any of the settings, at least one; the id cannot change. */
export const UpdateSiteBody = v.pipe(
  v.strictObject({ name: v.optional(TrimmedName), cookieless: v.optional(v.boolean('must be a boolean')), retention_days: v.optional(RetentionDays) }),
  v.check((body) => body.name !== undefined || body.cookieless !== undefined || body.retention_days !== undefined, 'name, cookieless or retention_days is required'),
);
export type UpdateSiteInput = v.InferOutput<typeof UpdateSiteBody>;

function siteOfWorkspace(context: AppContext, workspaceId: string, siteId: string): SiteRow {
  const site = findSite(context.db, siteId);
  if (!site || site.workspace_id !== workspaceId) throw ApiError.notFound();
  return site;
}

export function readSite(context: AppContext, workspace: WorkspaceRow, siteId: string): Site {
  return toSite(siteOfWorkspace(context, workspace.id, siteId));
}

/**
 * Renames the site, turns cookieless visitors on or off and/or sets its retention period; audited site.update with
 * what changed (from and to), nothing when nothing changed.
 */
export function updateSite(context: AppContext, actor: Actor, workspaceId: string, siteId: string, input: UpdateSiteInput): Site {
  return inWriteTransaction(context.db, () => {
    const site = siteOfWorkspace(context, workspaceId, siteId);
    const updated: SiteRow = {
      ...site,
      name: input.name ?? site.name,
      cookieless: input.cookieless === undefined ? site.cookieless : input.cookieless ? 1 : 0,
      retention_days: input.retention_days === undefined ? site.retention_days : input.retention_days,
    };
    const changes: Record<string, unknown> = {};
    if (updated.name !== site.name) changes.name = { from: site.name, to: updated.name };
    if (updated.cookieless !== site.cookieless) changes.cookieless = { from: site.cookieless === 1, to: updated.cookieless === 1 };
    if (updated.retention_days !== site.retention_days) changes.retention_days = { from: site.retention_days, to: updated.retention_days };
    if (Object.keys(changes).length > 0) {
      updateSiteRow(context.db, updated);
      if (changes.cookieless) forgetCookielessSetting(context.db, site.id);
      recordAudit(context, { workspaceId, actor, action: 'site.update', target: site.id, metadata: changes });
    }
    return toSite(updated);
  });
}

/** Site ids are unique across workspaces (they are the legacy bearer): a taken id is 409 site_id_taken. */
export function createSite(context: AppContext, actor: Actor, workspace: WorkspaceRow, input: CreateSiteInput): Site {
  return inWriteTransaction(context.db, () => {
    if (findSite(context.db, input.id)) throw ApiError.conflict('site_id_taken', `The site id ${input.id} is taken`);
    const row: SiteRow = {
      id: input.id,
      workspace_id: workspace.id,
      name: input.name,
      created_at: toIso(context.clock.now()),
      cookieless: input.cookieless ? 1 : 0,
      retention_days: input.retention_days ?? null,
    };
    insertSite(context.db, row);
    const metadata = { name: row.name, cookieless: input.cookieless, ...(row.retention_days === null ? {} : { retention_days: row.retention_days }) };
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'site.create', target: row.id, metadata });
    return toSite(row);
  });
}

export function listSites(context: AppContext, workspace: WorkspaceRow, limit: number, cursor?: string): { sites: Site[]; next_cursor: string | null } {
  const rows = listSiteRows(context.db, { workspaceId: workspace.id, ...afterParams(decodePageCursor(cursor)), limit: limit + 1 });
  const page = toPage(rows, limit);
  return { sites: page.rows.map(toSite), next_cursor: page.nextCursor };
}

/**
 * Deletes the site and every row any domain keeps for it (the context's siteDataRemovers, src/app.ts) in one
 * transaction; a site of another workspace is a 404.
 */
export function deleteSite(context: AppContext, actor: Actor, workspace: WorkspaceRow, siteId: string): void {
  inWriteTransaction(context.db, () => {
    const site = siteOfWorkspace(context, workspace.id, siteId);
    removeSiteData(context.db, context.siteDataRemovers, site.id);
    deleteSiteRow(context.db, site.id);
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'site.delete', target: site.id, metadata: { name: site.name } });
  }, { eventLog: true });
}
