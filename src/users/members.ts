// A workspace's members: add an existing user with a role, change a role, remove one. A workspace keeps at least one
// owner once it has one (409 last_owner). Each change writes its row to the workspace's audit log.
import * as v from 'valibot';
import { allRoles, type Role } from '../access/caller.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import type { WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { normaliseEmail } from './accounts.ts';
import {
  countOwners,
  deleteMembership,
  findMembership,
  insertMembership,
  type MemberListRow,
  membersOfWorkspace,
  setMembershipRole,
} from './queries/membership-rows.ts';
import { findUserByEmail, findUserById } from './queries/user-rows.ts';

export const RoleField = v.picklist(allRoles, `must be one of ${allRoles.join(', ')}`);
export const AddMemberBody = v.pipe(
  v.strictObject({ user_id: v.optional(v.string('must be a string')), email: v.optional(v.string('must be a string')), role: RoleField }),
  v.check((body) => (body.user_id === undefined) !== (body.email === undefined), 'give exactly one of user_id and email'),
);
export const UpdateMemberBody = v.strictObject({ role: RoleField });

export interface Member {
  workspace: string;
  user_id: string;
  email: string;
  name: string;
  role: Role;
  created_at: string;
  disabled_at: string | null;
}

const toMember = (workspace: WorkspaceRow, row: MemberListRow): Member => ({
  workspace: workspace.slug,
  user_id: row.user_id,
  email: row.email,
  name: row.name,
  role: row.role,
  created_at: row.created_at,
  disabled_at: row.disabled_at,
});

function memberOf(context: AppContext, workspace: WorkspaceRow, userId: string): Member {
  return toMember(workspace, membersOfWorkspace(context.db, workspace.id).find((row) => row.user_id === userId)!);
}

export function listMembers(context: AppContext, workspace: WorkspaceRow): Member[] {
  return membersOfWorkspace(context.db, workspace.id).map((row) => toMember(workspace, row));
}

/** Adds an existing user (by id or e-mail): 404 for no such user, 409 already_member. */
export function addMember(context: AppContext, actor: Actor, workspace: WorkspaceRow, input: { user_id?: string; email?: string; role: Role }): Member {
  return inWriteTransaction(context.db, () => {
    const user = input.user_id !== undefined ? findUserById(context.db, input.user_id) : findUserByEmail(context.db, normaliseEmail(input.email!));
    if (!user) throw ApiError.notFound('No such user');
    if (findMembership(context.db, workspace.id, user.id)) throw ApiError.conflict('already_member', 'This user is already a member: change the role instead');
    insertMembership(context.db, { workspace_id: workspace.id, user_id: user.id, role: input.role, created_at: toIso(context.clock.now()) });
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'member.add', target: user.id, metadata: { role: input.role } });
    return memberOf(context, workspace, user.id);
  });
}

export function updateMember(context: AppContext, actor: Actor, workspace: WorkspaceRow, userId: string, role: Role): Member {
  return inWriteTransaction(context.db, () => {
    const membership = findMembership(context.db, workspace.id, userId);
    if (!membership) throw ApiError.notFound('No such member');
    if (membership.role === role) return memberOf(context, workspace, userId);
    if (membership.role === 'owner') refuseLastOwner(context, workspace);
    setMembershipRole(context.db, workspace.id, userId, role);
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'member.update', target: userId, metadata: { from: membership.role, role } });
    return memberOf(context, workspace, userId);
  });
}

export function removeMember(context: AppContext, actor: Actor, workspace: WorkspaceRow, userId: string): void {
  inWriteTransaction(context.db, () => {
    const membership = findMembership(context.db, workspace.id, userId);
    if (!membership) throw ApiError.notFound('No such member');
    if (membership.role === 'owner') refuseLastOwner(context, workspace);
    deleteMembership(context.db, workspace.id, userId);
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'member.remove', target: userId, metadata: { role: membership.role } });
  });
}

function refuseLastOwner(context: AppContext, workspace: WorkspaceRow): void {
  if (countOwners(context.db, workspace.id) <= 1) throw ApiError.conflict('last_owner', 'A workspace keeps at least one owner: make another member owner first');
}
