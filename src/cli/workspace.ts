// `sightline workspace create|list|rename`.
import { defineCommand } from 'citty';
import { createWorkspace, CreateWorkspaceBody, listWorkspaces, renameWorkspaceBySlug, UpdateWorkspaceBody } from '../admin/workspaces.ts';
import { parseBody } from '../http/validate.ts';
import { commonArgs, output, collectPages, requireWorkspace, runCommandSafely, systemActor, table, withContext } from './common.ts';

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
      }, { creates: true }),
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

const rename = defineCommand({
  meta: { name: 'rename', description: 'Rename a workspace (its slug never changes)' },
  args: {
    ...commonArgs,
    slug: { type: 'string', description: 'The workspace\'s slug', required: true },
    name: { type: 'string', description: 'New display name (1-128 characters)', required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.slug);
        const input = parseBody(UpdateWorkspaceBody, { name: args.name });
        const renamed = renameWorkspaceBySlug(context, systemActor, workspace, input.name!);
        output(args, renamed, () => `Renamed workspace ${renamed.slug}: ${JSON.stringify(workspace.name)} → ${JSON.stringify(renamed.name)}`);
      }),
    ),
});

export const workspaceCommand = defineCommand({
  meta: { name: 'workspace', description: 'Manage workspaces' },
  subCommands: { create, list, rename },
});
