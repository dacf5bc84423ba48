// `sightline endpoint add|list|remove`: outbound webhook endpoints of a workspace, managed from the console with the
// same rules as /v1/workspaces/:slug/integrations/endpoints (the signing secret is printed once).
import { defineCommand } from 'citty';
import { createEndpoint, CreateEndpointBody, deleteEndpoint, listEndpoints } from '../integrations/endpoints.ts';
import { subscribableEventTypes } from '../integrations/event-types.ts';
import { collectPages, commonArgs, output, parseFlags, requireWorkspace, runCommandSafely, systemActor, table, withContext } from './common.ts';

const workspaceArg = { workspace: { type: 'string', description: 'Workspace slug', required: true } } as const;

const add = defineCommand({
  meta: { name: 'add', description: 'Add an endpoint (its signing secret is printed once)' },
  args: {
    ...commonArgs,
    ...workspaceArg,
    url: { type: 'string', description: 'Where deliveries are POSTed (http or https)', required: true },
    events: { type: 'string', description: `Comma-separated event types: ${subscribableEventTypes.join(', ')}`, required: true },
    description: { type: 'string', description: 'What the endpoint is for (at most 200 characters)' },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const eventTypes = args.events.split(',').map((type) => type.trim()).filter(Boolean);
        const input = parseFlags(CreateEndpointBody, { url: args.url, event_types: eventTypes, ...(args.description === undefined ? {} : { description: args.description }) }, { event_types: 'events' });
        const endpoint = createEndpoint(context, systemActor, workspace, input);
        output(args, endpoint, () => `Added endpoint ${endpoint.id} (${endpoint.event_types.join(', ')})\n${endpoint.secret}\n${endpoint.warning}`);
      }),
    ),
});

const list = defineCommand({
  meta: { name: 'list', description: 'List the endpoints of a workspace (never their secrets)' },
  args: { ...commonArgs, ...workspaceArg },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const endpoints = collectPages((cursor) => {
          const page = listEndpoints(context, workspace, 1000, cursor);
          return [page.endpoints, page.next_cursor];
        });
        output(args, { endpoints }, () =>
          table([['ID', 'URL', 'EVENTS', 'STATUS'], ...endpoints.map((e) => [e.id, e.url, e.event_types.join(','), e.disabled_reason ? `${e.status} (${e.disabled_reason})` : e.status])]),
        );
      }),
    ),
});

const remove = defineCommand({
  meta: { name: 'remove', description: 'Remove an endpoint with its delivery history' },
  args: { ...commonArgs, ...workspaceArg, id: { type: 'string', description: 'Endpoint id', required: true } },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        deleteEndpoint(context, systemActor, workspace, args.id);
        output(args, { removed: args.id }, () => `Removed endpoint ${args.id}`);
      }),
    ),
});

export const endpointCommand = defineCommand({
  meta: { name: 'endpoint', description: 'Manage outbound webhook endpoints (automation bridge)' },
  subCommands: { add, list, remove },
});
