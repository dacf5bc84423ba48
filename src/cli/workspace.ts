// `sightline workspace create|list`.
import { defineCommand } from 'citty';
import { createWorkspace, CreateWorkspaceBody, listWorkspaces } from '../admin/workspaces.ts';
import { parseBody } from '../http/validate.ts';
import { commonArgs, output, collectPages, runCommandSafely, systemActor, table, withContext } from './common.ts';

const create = defineCommand({
  meta: { name: 'create', description: 'Create a workspace' },
  args: {
    ...commonArgs,
    name: { type: 'string', description: 'Display name (1-128 characters)', required: true },
    slug: { type: 'string', description: 'URL handle, ^[a-z][a-z0-9-]{0,63}$', required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = createWorkspace(context, systemActor, parseBody(CreateWorkspaceBody, { name: args.name, slug: args.slug }));
        output(args, workspace, () => `Created workspace ${workspace.slug} (${workspace.id})`);
      }),
    ),
});

const list = defineCommand({
  meta: { name: 'list', description: 'List workspaces' },
  args: { ...commonArgs },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspaces = collectPages((cursor) => {
          const page = listWorkspaces(context, 1000, cursor);
          return [page.workspaces, page.next_cursor];
        });
        output(args, { workspaces }, () =>
          table([['SLUG', 'NAME', 'ID', 'CREATED'], ...workspaces.map((w) => [w.slug, w.name, w.id, w.created_at])]),
        );
      }),
    ),
});

export const workspaceCommand = defineCommand({
  meta: { name: 'workspace', description: 'Manage workspaces' },
  subCommands: { create, list },
});
