// `sightline site create|list`.
import { defineCommand } from 'citty';
import { createSite, CreateSiteBody, listSites } from '../admin/sites.ts';
import { parseBody } from '../http/validate.ts';
import { commonArgs, output, requireWorkspace, collectPages, runCommandSafely, systemActor, table, withContext } from './common.ts';

const create = defineCommand({
  meta: { name: 'create', description: 'Create a site in a workspace' },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug', required: true },
    id: { type: 'string', description: 'Site id, ^[A-Za-z0-9_-]{1,64}$', required: true },
    name: { type: 'string', description: 'Display name (1-128 characters)', required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const site = createSite(context, systemActor, workspace, parseBody(CreateSiteBody, { id: args.id, name: args.name }));
        output(args, site, () => `Created site ${site.id} in ${workspace.slug}`);
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
        output(args, { sites }, () => table([['ID', 'NAME', 'CREATED'], ...sites.map((s) => [s.id, s.name, s.created_at])]));
      }),
    ),
});

export const siteCommand = defineCommand({
  meta: { name: 'site', description: 'Manage sites' },
  subCommands: { create, list },
});
