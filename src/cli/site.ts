// `sightline site create|list`.
import { defineCommand } from 'citty';
import { createSite, CreateSiteBody, listSites, updateSite, UpdateSiteBody } from '../admin/sites.ts';
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
        const site = updateSite(context, systemActor, workspace, args.id, parseBody(UpdateSiteBody, { cookieless: onOff(args.cookieless) }));
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

export const siteCommand = defineCommand({
  meta: { name: 'site', description: 'Manage sites' },
  subCommands: { create, list, update },
});
