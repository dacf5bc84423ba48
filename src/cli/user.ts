// `sightline user create|list|disable` and `sightline member add|remove` (CONTRACT 9), so an operator can make the
// first account on a fresh install without the UI. `user create` prints a one-time set-password link (7 days, one
// use; src/users/password-links.ts): the operator never sees the person's password. The link points at PUBLIC_URL,
// else at the server's HOST:PORT.
import { defineCommand } from 'citty';
import * as v from 'valibot';
import { allRoles, type Role } from '../access/caller.ts';
import { ApiError } from '../http/errors.ts';
import { createPasswordLink } from '../users/password-links.ts';
import { parseBody } from '../http/validate.ts';
import { createUser, disableUser, Email, findUserByIdOrEmail, listAllUsers } from '../users/accounts.ts';
import { addMember, removeMember } from '../users/members.ts';
import { commonArgs, output, requireWorkspace, runCommandSafely, systemActor, table, withContext } from './common.ts';

function roleOf(value: string): Role {
  if (!(allRoles as readonly string[]).includes(value)) {
    throw ApiError.invalidPayload([{ path: '/role', message: `must be one of ${allRoles.join(', ')}` }]);
  }
  return value as Role;
}

const create = defineCommand({
  meta: { name: 'create', description: 'Create a user (an initial password is generated and printed once)' },
  args: {
    ...commonArgs,
    email: { type: 'string', description: 'E-mail address (compared lower-cased)', required: true },
    operator: { type: 'boolean', description: 'A platform operator: sees every workspace' },
    workspace: { type: 'string', description: 'Workspace slug to add the user to (with --role)' },
    role: { type: 'string', description: `Role in --workspace: ${allRoles.join(', ')}` },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, async (context) => {
        const { email } = parseBody(v.object({ email: Email }), { email: args.email });
        if ((args.workspace === undefined) !== (args.role === undefined)) {
          throw ApiError.invalidPayload([{ path: args.workspace === undefined ? '/workspace' : '/role', message: 'give --workspace and --role together' }]);
        }
        const workspace = args.workspace === undefined ? undefined : requireWorkspace(context, args.workspace);
        const role = args.role === undefined ? undefined : roleOf(args.role);
        const created = await createUser(context, { kind: 'system' }, { email, operator: args.operator === true });
        const membership = workspace && role ? addMember(context, systemActor, workspace, { user_id: created.user.id, role }) : undefined;
        // The generated initial password is never shown: the person sets their own through the link.
        const link = createPasswordLink(context, created.user.id, context.config.mailLinkBase);
        output(args, { user: created.user, set_password_url: link.url, set_password_expires_at: link.expires_at, membership: membership ?? null }, () =>
          [
            `Created user ${created.user.id} (${created.user.email})${created.user.operator ? ', operator' : ''}`,
            ...(membership ? [`Member of ${membership.workspace} as ${membership.role}`] : []),
            `Set-password link (shown once, works once until ${link.expires_at}): ${link.url}`,
          ].join('\n'),
        );
      }),
    ),
});

const list = defineCommand({
  meta: { name: 'list', description: 'List the users' },
  args: { ...commonArgs },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const users = listAllUsers(context);
        output(args, { users }, () =>
          table([
            ['ID', 'EMAIL', 'NAME', 'OPERATOR', '2FA', 'LAST LOGIN', 'DISABLED'],
            ...users.map((u) => [u.id, u.email, u.name || '-', u.operator ? 'yes' : 'no', u.totp_enabled ? 'on' : 'off', u.last_login_at ?? '-', u.disabled_at ?? '-']),
          ]),
        );
      }),
    ),
});

const disable = defineCommand({
  meta: { name: 'disable', description: 'Disable a user: no more sign-ins, every session ends' },
  args: { ...commonArgs, user: { type: 'string', description: 'User id or e-mail', required: true } },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const user = disableUser(context, { kind: 'system' }, findUserByIdOrEmail(context, args.user).id);
        output(args, user, () => `Disabled user ${user.id} (${user.email}) at ${user.disabled_at}`);
      }),
    ),
});

export const userCommand = defineCommand({
  meta: { name: 'user', description: 'Manage people\'s accounts' },
  subCommands: { create, list, disable },
});

const add = defineCommand({
  meta: { name: 'add', description: 'Add a user to a workspace with a role' },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug', required: true },
    user: { type: 'string', description: 'User id or e-mail', required: true },
    role: { type: 'string', description: `One of ${allRoles.join(', ')}`, required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const member = addMember(context, systemActor, workspace, { user_id: findUserByIdOrEmail(context, args.user).id, role: roleOf(args.role) });
        output(args, member, () => `Added ${member.email} to ${member.workspace} as ${member.role}`);
      }),
    ),
});

const remove = defineCommand({
  meta: { name: 'remove', description: 'Remove a user from a workspace (never its last owner)' },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug', required: true },
    user: { type: 'string', description: 'User id or e-mail', required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const user = findUserByIdOrEmail(context, args.user);
        removeMember(context, systemActor, workspace, user.id);
        output(args, { workspace: workspace.slug, user_id: user.id, removed: true }, () => `Removed ${user.email} from ${workspace.slug}`);
      }),
    ),
});

export const memberCommand = defineCommand({
  meta: { name: 'member', description: 'Manage workspace members' },
  subCommands: { add, remove },
});
