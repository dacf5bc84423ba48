// `sightline key create|list|revoke`.
import { defineCommand } from 'citty';
import { createKey, CreateKeyBody, listKeys, revokeKey } from '../admin/keys.ts';
import { ApiError } from '../http/errors.ts';
import { parseBody } from '../http/validate.ts';
import { commonArgs, output, requireWorkspace, collectPages, runCommandSafely, systemActor, table, withContext } from './common.ts';

const create = defineCommand({
  meta: { name: 'create', description: 'Create an API key (the plaintext is printed once)' },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug', required: true },
    label: { type: 'string', description: 'What the key is for', required: true },
    scopes: { type: 'string', description: 'Comma-separated: ingest:write, query:read, admin, integrations:write', required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const scopes = args.scopes.split(',').map((scope) => scope.trim()).filter(Boolean);
        const key = createKey(context, systemActor, workspace, parseBody(CreateKeyBody, { label: args.label, scopes }));
        output(args, key, () => `Created key ${key.id} (${key.scopes.join(', ')})\n${key.plaintext}\n${key.warning}`);
      }),
    ),
});

const list = defineCommand({
  meta: { name: 'list', description: 'List the API keys of a workspace (no plaintexts)' },
  args: { ...commonArgs, workspace: { type: 'string', description: 'Workspace slug', required: true } },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const keys = collectPages((cursor) => {
          const page = listKeys(context, workspace, 1000, cursor);
          return [page.keys, page.next_cursor];
        });
        output(args, { keys }, () =>
          table([
            ['ID', 'LABEL', 'SCOPES', 'LAST USED', 'REVOKED'],
            ...keys.map((k) => [k.id, k.label, k.scopes.join(','), k.last_used_at ?? '-', k.revoked_at ?? '-']),
          ]),
        );
      }),
    ),
});

const revoke = defineCommand({
  meta: { name: 'revoke', description: 'Revoke an API key' },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug', required: true },
    id: { type: 'string', description: 'Key id', required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        let key;
        try {
          key = revokeKey(context, systemActor, workspace, args.id);
        } catch (error) {
          // The HTTP answer must not tell unknown from revoked; the operator at the console may be told more.
          if (error instanceof ApiError && error.code === 'not_found') {
            throw ApiError.notFound(`No active key ${args.id} in workspace ${workspace.slug} (unknown, or already revoked)`);
          }
          throw error;
        }
        output(args, key, () => `Revoked key ${key.id} at ${key.revoked_at}`);
      }),
    ),
});

export const keyCommand = defineCommand({
  meta: { name: 'key', description: 'Manage API keys' },
  subCommands: { create, list, revoke },
});
