// `sightline site create|list|update|retention|delete`: a site is named by --workspace W --id ID in each.
import { defineCommand } from 'citty';
import { findSite, type SiteRow } from '../tenants/queries/find-site.ts';
import { removeSiteData } from '../tenants/site-data.ts';
import { createSite, CreateSiteBody, deleteSite, listSites, retentionDaysRange, type Site, updateSite, UpdateSiteBody } from '../admin/sites.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { parseBody } from '../http/validate.ts';
import { commonArgs, output, parseFlags, requireSite, requireWorkspace, collectPages, runCommandSafely, systemActor, table, withContext } from './common.ts';

const cookielessArg = { type: 'string', description: 'Cookieless visitors (docs/tracker.md): on or off' } as const;

/** on/off (true/false too); absent stays undefined. */
function onOff(text: string | undefined): boolean | undefined {
  if (text === undefined) return undefined;
  if (text === 'on' || text === 'true') return true;
  if (text === 'off' || text === 'false') return false;
  throw ApiError.invalidPayload([{ path: '/cookieless', message: 'must be on or off' }]);
}

const create = defineCommand({
  meta: { name: 'create', description: 'Create a site in a workspace' },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug', required: true },
    id: { type: 'string', description: 'Site id, ^[A-Za-z0-9_-]{1,64}$', required: true },
    name: { type: 'string', description: 'Display name (1-128 characters)', required: true },
    cookieless: { ...cookielessArg, description: 'Cookieless visitors (docs/tracker.md): on (default) or off' },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const input = parseBody(CreateSiteBody, { id: args.id, name: args.name, cookieless: onOff(args.cookieless) });
        const site = createSite(context, systemActor, workspace, input);
        output(args, site, () => `Created site ${site.id} in ${workspace.slug} (cookieless ${site.cookieless ? 'on' : 'off'})`);
      }),
    ),
});

/** --days / --retention-days: a whole number of days (checked against the range by the body's schema) or "forever" (null). */
function retentionOf(days: string | undefined): number | null | string | undefined {
  if (days === undefined) return undefined;
  if (days === 'forever') return null;
  return /^\d{1,9}$/.test(days) ? Number(days) : days;
}

const retentionHelp = `${retentionDaysRange.min}-${retentionDaysRange.max} whole UTC days of events kept, or "forever"`;

const update = defineCommand({
  meta: { name: 'update', description: "Change a site's settings: name, cookieless visitors, retention period" },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug', required: true },
    id: { type: 'string', description: 'Site id', required: true },
    name: { type: 'string', description: 'Display name (1-128 characters)' },
    cookieless: cookielessArg,
    'retention-days': { type: 'string', description: retentionHelp },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const site = requireSite(context, workspace, args.id);
        if (args.name === undefined && args.cookieless === undefined && args['retention-days'] === undefined) {
          throw ApiError.invalidPayload([{ path: '', message: 'give --name, --cookieless or --retention-days' }]);
        }
        const input = parseFlags(UpdateSiteBody, { name: args.name, cookieless: onOff(args.cookieless), retention_days: retentionOf(args['retention-days']) });
        const updated = updateSite(context, systemActor, workspace.id, site.id, input);
        output(args, updated, () => `Updated site ${updated.id}: ${describeSettings(updated)}`);
      }),
    ),
});

function describeSettings(site: Site): string {
  return `name ${JSON.stringify(site.name)}, cookieless ${site.cookieless ? 'on' : 'off'}, keeps ${site.retention_days === null ? 'its events forever' : `${site.retention_days} days of events`}`;
}

const list = defineCommand({
  meta: { name: 'list', description: 'List the sites of a workspace' },
  args: { ...commonArgs, workspace: { type: 'string', description: 'Workspace slug', required: true } },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const sites = collectPages((cursor) => {
          const page = listSites(context, workspace, 1000, cursor);
          return [page.sites, page.next_cursor];
        });
        output(args, { sites }, () =>
          table([['ID', 'NAME', 'CREATED', 'COOKIELESS'], ...sites.map((s) => [s.id, s.name, s.created_at, s.cookieless ? 'on' : 'off'])]),
        );
      }),
    ),
});

const retention = defineCommand({
  meta: { name: 'retention', description: `Set how many whole UTC days of events a site keeps (${retentionDaysRange.min}-${retentionDaysRange.max}), or forever (site update --retention-days does the same)` },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug (required with --id)' },
    id: { type: 'string', description: 'Site id' },
    site: { type: 'string', description: 'Site id, without --workspace (the older form of --workspace W --id ID)' },
    days: { type: 'string', description: retentionHelp, required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const site = siteOfRetentionArgs(context, args);
        const input = parseFlags(UpdateSiteBody, { retention_days: retentionOf(args.days) }, { retention_days: 'days' });
        const updated = updateSite(context, systemActor, site.workspace_id, site.id, input);
        output(args, updated, () => `Site ${updated.id} keeps ${updated.retention_days === null ? 'its events forever' : `${updated.retention_days} days of events`}`);
      }),
    ),
});

/** `--workspace W --id ID`, as every other site command names a site, or the older `--site ID` alone. */
function siteOfRetentionArgs(context: AppContext, args: { workspace?: string; id?: string; site?: string }): SiteRow {
  if (args.site !== undefined && (args.id !== undefined || args.workspace !== undefined)) {
    throw ApiError.invalidPayload([{ path: '/site', message: 'give either --workspace and --id, or --site alone' }]);
  }
  if (args.site !== undefined) {
    const found = findSite(context.db, args.site);
    if (!found) throw ApiError.notFound(`No site ${args.site}`);
    return found;
  }
  if (args.workspace === undefined || args.id === undefined) {
    throw ApiError.invalidPayload([{ path: args.workspace === undefined ? '/workspace' : '/id', message: 'is required (site retention --workspace W --id ID --days N)' }]);
  }
  return requireSite(context, requireWorkspace(context, args.workspace), args.id);
}

/**
 * A server running on the directory knows site ids from a cache that lives a second (src/ingest/ingest-auth.ts): in
 * that second it may still accept and store the deleted site's events. Once the cache has certainly expired, the
 * removers run again, unless a site of that id was created meanwhile, so that nothing of the site is left behind.
 */
const serverSiteCacheMs = 1500;

async function sweepAfterServerCache(context: AppContext, siteId: string): Promise<void> {
  await new Promise((done) => setTimeout(done, serverSiteCacheMs));
  inWriteTransaction(context.db, () => {
    if (!findSite(context.db, siteId)) removeSiteData(context.db, context.siteDataRemovers, siteId);
  }, { eventLog: true });
}

const remove = defineCommand({
  meta: { name: 'delete', description: 'Delete a site and all of its data (events, visits, reports, share links, secrets…); cannot be undone' },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug', required: true },
    id: { type: 'string', description: 'Site id', required: true },
    yes: { type: 'boolean', description: 'Confirm the deletion (required: nothing asks)', default: false },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, async (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const site = requireSite(context, workspace, args.id);
        if (!args.yes) {
          throw new ApiError(409, 'confirmation_required', `Deleting site ${site.id} removes all of its events, visits, reports, share links and secrets, and cannot be undone: add --yes to confirm`);
        }
        // The API's own action: every remover of the app's list (src/app.ts, through the context) in one transaction.
        deleteSite(context, systemActor, workspace, site.id);
        await sweepAfterServerCache(context, site.id);
        output(args, { deleted: site.id }, () => `Deleted site ${site.id} of ${workspace.slug} and all of its data`);
      }),
    ),
});

export const siteCommand = defineCommand({
  meta: { name: 'site', description: 'Manage sites' },
  subCommands: { create, list, update, retention, delete: remove },
});
