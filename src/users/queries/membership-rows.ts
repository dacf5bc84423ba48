// The memberships table (schema version 20): a user's role in one workspace.
import type { Role } from '../../access/caller.ts';
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface MembershipRow {
  workspace_id: string;
  user_id: string;
  role: Role;
  created_at: string;
}

export interface MemberListRow extends MembershipRow {
  email: string;
  name: string;
  disabled_at: string | null;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<MembershipRow>('INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (:workspace_id, :user_id, :role, :created_at)'),
  find: db.prepare<[string, string], MembershipRow>('SELECT workspace_id, user_id, role, created_at FROM memberships WHERE workspace_id = ? AND user_id = ?'),
  ofUser: db.prepare<[string], MembershipRow>('SELECT workspace_id, user_id, role, created_at FROM memberships WHERE user_id = ? ORDER BY created_at, workspace_id'),
  ofWorkspace: db.prepare<[string], MemberListRow>(
    `SELECT m.workspace_id, m.user_id, m.role, m.created_at, u.email, u.name, u.disabled_at
     FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? ORDER BY m.created_at, m.user_id`,
  ),
  owners: db.prepare<[string], { count: number }>("SELECT count(*) AS count FROM memberships WHERE workspace_id = ? AND role = 'owner'"),
  setRole: db.prepare<{ workspace_id: string; user_id: string; role: Role }>('UPDATE memberships SET role = :role WHERE workspace_id = :workspace_id AND user_id = :user_id'),
  remove: db.prepare<[string, string]>('DELETE FROM memberships WHERE workspace_id = ? AND user_id = ?'),
}));

export const insertMembership = (db: Db, row: MembershipRow): void => void statements(db).insert.run(row);
export const findMembership = (db: Db, workspaceId: string, userId: string): MembershipRow | undefined => statements(db).find.get(workspaceId, userId);
export const membershipsOfUser = (db: Db, userId: string): MembershipRow[] => statements(db).ofUser.all(userId);
export const membersOfWorkspace = (db: Db, workspaceId: string): MemberListRow[] => statements(db).ofWorkspace.all(workspaceId);
export const countOwners = (db: Db, workspaceId: string): number => statements(db).owners.get(workspaceId)!.count;
export const setMembershipRole = (db: Db, workspaceId: string, userId: string, role: Role): void => void statements(db).setRole.run({ workspace_id: workspaceId, user_id: userId, role });
export const deleteMembership = (db: Db, workspaceId: string, userId: string): void => void statements(db).remove.run(workspaceId, userId);
