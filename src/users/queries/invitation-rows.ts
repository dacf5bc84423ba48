// The invitations table (schema version 21): found by the SHA-256 of the token, listed per workspace.
import type { Role } from '../../access/caller.ts';
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface InvitationRow {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  token_hash: Buffer;
  created_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
}

const columns = 'id, workspace_id, email, role, token_hash, created_by, created_at, expires_at, accepted_at, accepted_by, revoked_at';

const statements = preparedOnce((db) => ({
  insert: db.prepare<InvitationRow>(
    `INSERT INTO invitations (${columns}) VALUES (:id, :workspace_id, :email, :role, :token_hash, :created_by, :created_at, :expires_at, :accepted_at, :accepted_by, :revoked_at)`,
  ),
  byHash: db.prepare<[Buffer], InvitationRow>(`SELECT ${columns} FROM invitations WHERE token_hash = ?`),
  ofWorkspace: db.prepare<{ workspace_id: string; limit: number }, InvitationRow>(
    `SELECT ${columns} FROM invitations WHERE workspace_id = :workspace_id ORDER BY created_at DESC, id LIMIT :limit`,
  ),
  pendingOfEmail: db.prepare<{ email: string; now: string }, InvitationRow>(
    `SELECT ${columns} FROM invitations WHERE email = :email AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > :now ORDER BY created_at, id`,
  ),
  // Only a pending, unexpired invitation is taken: of two requests racing with one token, one wins.
  accept: db.prepare<{ id: string; now: string; user_id: string }>(
    'UPDATE invitations SET accepted_at = :now, accepted_by = :user_id WHERE id = :id AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > :now',
  ),
  revoke: db.prepare<{ id: string; workspace_id: string; now: string }>(
    'UPDATE invitations SET revoked_at = :now WHERE id = :id AND workspace_id = :workspace_id AND accepted_at IS NULL AND revoked_at IS NULL',
  ),
}));

export const insertInvitation = (db: Db, row: InvitationRow): void => void statements(db).insert.run(row);
export const findInvitationByHash = (db: Db, tokenHash: Buffer): InvitationRow | undefined => statements(db).byHash.get(tokenHash);
export const invitationsOfWorkspace = (db: Db, workspaceId: string, limit: number): InvitationRow[] => statements(db).ofWorkspace.all({ workspace_id: workspaceId, limit });
/** Marks a pending invitation accepted; false when it was used, revoked or expired meanwhile. */
export const markInvitationAccepted = (db: Db, id: string, userId: string, now: string): boolean => statements(db).accept.run({ id, now, user_id: userId }).changes > 0;
/** Revokes a pending invitation of the workspace; false when there is none (missing, foreign, used or revoked). */
export const revokeInvitationRow = (db: Db, workspaceId: string, id: string, now: string): boolean => statements(db).revoke.run({ id, workspace_id: workspaceId, now }).changes > 0;
/** The pending, unexpired invitations of a (lower-cased) e-mail, oldest first: what a first single sign-on accepts. */
export const pendingInvitationsOfEmail = (db: Db, email: string, now: string): InvitationRow[] => statements(db).pendingOfEmail.all({ email, now });
