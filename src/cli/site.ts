// `sightline site create|list|update|retention`.
import { defineCommand } from 'citty';
import { findSite } from '../tenants/queries/find-site.ts';
import { createSite, CreateSiteBody, listSites, retentionDaysRange, updateSite, UpdateSiteBody } from '../admin/sites.ts';
import { ApiError } from '../http/errors.ts';
import { parseBody } from '../http/validate.ts';
import { commonArgs, output, requireWorkspace, collectPages, runCommandSafely, systemActor, table, withContext } from './common.ts';

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

const update = defineCommand({
  meta: { name: 'update', description: "Change a site's settings" },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug', required: true },
    id: { type: 'string', description: 'Site id', required: true },
    cookieless: cookielessArg,
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const site = updateSite(context, systemActor, workspace.id, args.id, parseBody(UpdateSiteBody, { cookieless: onOff(args.cookieless) }));
        output(args, site, () => `Updated site ${site.id} (cookieless ${site.cookieless ? 'on' : 'off'})`);
      }),
    ),
});

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

/** --days: a whole number of days (checked against the range by the body's schema) or "forever" (null). */
function retentionOf(days: string): number | null | string {
  if (days === 'forever') return null;
  return /^\d{1,9}$/.test(days) ? Number(days) : days;
}

/** The update body of --days; a refusal names --days. */
function retentionInput(days: string) {
  try {
    return parseBody(UpdateSiteBody, { retention_days: retentionOf(days) });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new ApiError(error.status, error.code, error.message, error.details?.map((detail) => ({ ...detail, path: '/days' })));
  }
}

const retention = defineCommand({
  meta: { name: 'retention', description: `Set how many whole UTC days of events a site keeps (${retentionDaysRange.min}-${retentionDaysRange.max}), or forever` },
  args: {
    ...commonArgs,
    site: { type: 'string', description: 'Site id', required: true },
    days: { type: 'string', description: `${retentionDaysRange.min}-${retentionDaysRange.max}, or "forever"`, required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const found = findSite(context.db, args.site);
        if (!found) throw ApiError.notFound(`No site ${args.site}`);
        const input = retentionInput(args.days);
        const site = updateSite(context, systemActor, found.workspace_id, found.id, input);
        output(args, site, () => `Site ${site.id} keeps ${site.retention_days === null ? 'its events forever' : `${site.retention_days} days of events`}`);
      }),
    ),
});

export const siteCommand = defineCommand({
  meta: { name: 'site', description: 'Manage sites' },
  subCommands: { create, list, update, retention },
});
