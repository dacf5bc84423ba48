// Invitations (CONTRACT 9, docs/people.md "Invitations"): an owner or admin invites an e-mail with a role; the link
// carries a token (inv_ + 32 random bytes, base64url) shown once and stored only as its SHA-256, good for one use
// within 7 days unless revoked. Accepting creates the account, or adds the membership to the existing account of
// that e-mail when the request comes from that account, signed in. Whether the e-mail has an account changes nothing
// in what the inviter sees (no enumeration); an unknown, used, revoked or expired token is the same 404, and each
// such failure counts against the client's address in the failure throttle, like a wrong password.
import type { H3Event } from 'h3';
import * as v from 'valibot';
import { actsAsOperatorIn, type Caller, type Role } from '../access/caller.ts';
import { authThrottleOf, clientIpOf, clientKeyOf, refuseIfThrottled } from '../access/auth-throttle.ts';
import { type Actor, recordAudit } from '../audit/record-audit.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import { hashSecret } from '../tenants/api-key-token.ts';
import { findWorkspaceById, type WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import { recordAccountAudit } from './account-audit.ts';
import { Email, normaliseEmail, Password, toUser, type User, UserName } from './accounts.ts';
import { RoleField } from './members.ts';
import { hashPassword } from './password.ts';
import { findInvitationByHash, insertInvitation, type InvitationRow, invitationsOfWorkspace, markInvitationAccepted, revokeInvitationRow } from './queries/invitation-rows.ts';
import { findMembership, insertMembership } from './queries/membership-rows.ts';
import { findUserByEmail, findUserById, insertUser } from './queries/user-rows.ts';
import { signedInUserOf } from './user-sessions.ts';
import { escapeHtml, mailDocument, mailStyles } from '../mail/mail-html.ts';

/** An invitation works until exactly this long after it was made (refused from that millisecond on). */
export const invitationLifetimeMs = 7 * 24 * 60 * 60 * 1000;
/** A workspace lists at most this many invitations, newest first. */
export const maxInvitationsListed = 200;

export const CreateInvitationBody = v.strictObject({ email: Email, role: RoleField });
export const AcceptInvitationBody = v.strictObject({
  token: v.pipe(v.string('must be a string'), v.maxLength(256, 'must be at most 256 characters')),
  name: v.optional(UserName),
  password: v.optional(Password),
});

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface Invitation {
  id: string;
  workspace: string;
  email: string;
  role: Role;
  status: InvitationStatus;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

function statusOf(row: InvitationRow, now: number): InvitationStatus {
  if (row.accepted_at !== null) return 'accepted';
  if (row.revoked_at !== null) return 'revoked';
  return Date.parse(row.expires_at) > now ? 'pending' : 'expired';
}

function toInvitation(workspace: WorkspaceRow, row: InvitationRow, now: number): Invitation {
  return {
    id: row.id,
    workspace: workspace.slug,
    email: row.email,
    role: row.role,
    status: statusOf(row, now),
    created_at: row.created_at,
    expires_at: row.expires_at,
    accepted_at: row.accepted_at,
    revoked_at: row.revoked_at,
  };
}

const createdByOf = (actor: Actor): string => (actor.kind === 'admin' || actor.kind === 'system' ? actor.kind : `${actor.kind}:${actor.id}`);

/**
 * Makes an invitation and answers its link once. Only an owner (or the operator) may invite an owner: an admin
 * cannot hand out more than it has (403 forbidden_scope). A current member's e-mail is 409 already_member (the
 * inviter can list the members anyway); whether the e-mail has an account elsewhere changes nothing in the answer.
 */
export function createInvitation(
  context: AppContext,
  caller: Caller,
  actor: Actor,
  workspace: WorkspaceRow,
  input: { email: string; role: Role },
  linkBase: string,
): { id: string; url: string; expires_at: string } {
  if (input.role === 'owner' && !actsAsOperatorIn(caller, workspace.id)) throw new ApiError(403, 'forbidden_scope', 'Only an owner may invite an owner');
  const email = normaliseEmail(input.email);
  const token = `inv_${context.random.bytes(32).toString('base64url')}`;
  const now = context.clock.now();
  const row: InvitationRow = {
    id: context.random.uuid(),
    workspace_id: workspace.id,
    email,
    role: input.role,
    token_hash: hashSecret(token),
    created_by: createdByOf(actor),
    created_at: toIso(now),
    expires_at: toIso(now + invitationLifetimeMs),
    accepted_at: null,
    accepted_by: null,
    revoked_at: null,
  };
  inWriteTransaction(context.db, () => {
    const existing = findUserByEmail(context.db, email);
    if (existing && findMembership(context.db, workspace.id, existing.id)) throw ApiError.conflict('already_member', 'This e-mail is already a member: change the role instead');
    insertInvitation(context.db, row);
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'invitation.create', target: row.id, metadata: { role: row.role } });
  });
  // The token travels in the fragment: a browser never sends it to a server or a log.
  return { id: row.id, url: `${linkBase}/#/invitations/accept?token=${token}`, expires_at: row.expires_at };
}

/**
 * The invitation as a mail (sent directly, never stored: its link carries the token): both parts, inline styles.
 * @example invitationMail(workspace, 'viewer', { url, expires_at })
 */
export function invitationMail(workspace: Pick<WorkspaceRow, 'name'>, role: Role, invitation: { url: string; expires_at: string }): { subject: string; text: string; html: string } {
  const subject = `You are invited to ${workspace.name} on Sightline`;
  const sentence = `You are invited to join ${workspace.name} on Sightline as ${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}.`;
  const text = [sentence, '', `Accept: ${invitation.url}`, '', `The link works once, until ${invitation.expires_at} (UTC). If you did not expect it, ignore this mail.`].join('\n');
  const content =
    `<h1 style="${mailStyles.heading}">${escapeHtml(subject)}</h1><p style="margin:8px 0 16px 0;font-size:14px;">${escapeHtml(sentence)}</p>` +
    `<p><a href="${escapeHtml(invitation.url)}" style="${mailStyles.link}">Accept the invitation</a></p>` +
    `<p style="${mailStyles.muted}">${escapeHtml(`The link works once, until ${invitation.expires_at} (UTC).`)}</p>`;
  return { subject, text, html: mailDocument({ title: subject, content, footer: 'If you did not expect this invitation, ignore this mail.' }) };
}

export function listInvitations(context: AppContext, workspace: WorkspaceRow): Invitation[] {
  const now = context.clock.now();
  return invitationsOfWorkspace(context.db, workspace.id, maxInvitationsListed).map((row) => toInvitation(workspace, row, now));
}

/** Revokes a pending invitation of the workspace; a missing, foreign, accepted or already revoked one is 404. */
export function revokeInvitation(context: AppContext, actor: Actor, workspace: WorkspaceRow, id: string): void {
  inWriteTransaction(context.db, () => {
    if (!revokeInvitationRow(context.db, workspace.id, id, toIso(context.clock.now()))) throw ApiError.notFound();
    recordAudit(context, { workspaceId: workspace.id, actor, action: 'invitation.revoke', target: id });
  });
}

export interface AcceptedInvitation {
  user: User;
  workspace: { id: string; slug: string; name: string };
  role: Role;
}

const invitationNotFound = () => ApiError.notFound('No such invitation');

/**
 * Accepts an invitation. The token is a secret: the client's address is refused with 429 once it has failed too
 * often, and a token that is unknown, used, revoked or expired is counted and answered the same 404.
 */
export async function acceptInvitation(
  event: H3Event,
  context: AppContext,
  input: { token: string; name?: string; password?: string },
): Promise<AcceptedInvitation> {
  const ipKey = clientKeyOf(clientIpOf(event, context));
  refuseIfThrottled(context, ipKey);
  const found = input.token.startsWith('inv_') ? findInvitationByHash(context.db, hashSecret(input.token)) : undefined;
  if (!found || statusOf(found, context.clock.now()) !== 'pending') {
    authThrottleOf(context).recordFailure(ipKey);
    throw invitationNotFound();
  }
  const existing = findUserByEmail(context.db, found.email);
  let passwordHash: string | undefined;
  if (existing) {
    // The account exists: only its owner, signed in, may join it to the workspace (a link alone never adds a
    // workspace to someone's account). Said to the link's holder only, who is the invited e-mail.
    const signedIn = signedInUserOf(event, context);
    if (!signedIn) throw new ApiError(401, 'sign_in_required', 'This e-mail has an account: sign in to it, then accept the invitation');
    if (signedIn.user.id !== existing.id) throw new ApiError(403, 'wrong_account', 'This invitation is for another account: sign in as the invited e-mail');
    if (input.password !== undefined) throw ApiError.invalidPayload([{ path: '/password', message: 'this e-mail has an account: accept signed in, without a password' }]);
  } else {
    if (input.password === undefined) throw ApiError.invalidPayload([{ path: '/password', message: 'is required to create the account' }]);
    passwordHash = await hashPassword(input.password);
  }
  return inWriteTransaction(context.db, () => {
    const nowMs = context.clock.now();
    const now = toIso(nowMs);
    // Looked at again inside the transaction: the password hash took time, and a second request may have won.
    const invitation = findInvitationByHash(context.db, found.token_hash);
    if (!invitation || statusOf(invitation, nowMs) !== 'pending') throw invitationNotFound();
    let userId: string;
    if (existing) {
      userId = existing.id;
    } else {
      if (findUserByEmail(context.db, invitation.email)) throw ApiError.conflict('email_taken', 'An account with this e-mail was just made: sign in to it and accept again');
      userId = context.random.uuid();
      insertUser(context.db, { id: userId, email: invitation.email, name: input.name ?? '', password_hash: passwordHash!, operator: 0, created_at: now });
      recordAccountAudit(context, { actor: { kind: 'anonymous' }, action: 'user.create', userId, metadata: { operator: false, invitation_id: invitation.id } });
    }
    if (findMembership(context.db, invitation.workspace_id, userId)) throw ApiError.conflict('already_member', 'This account is already a member of the workspace');
    if (!joinByInvitation(context, invitation, userId)) throw invitationNotFound();
    const workspace = findWorkspaceById(context.db, invitation.workspace_id)!;
    return { user: toUser(findUserById(context.db, userId)!), workspace: { id: workspace.id, slug: workspace.slug, name: workspace.name }, role: invitation.role };
  });
}

/**
 * Marks a pending invitation accepted by the user and adds the membership, with its two audit rows; false when it
 * was used, revoked or expired meanwhile. Call inside a write transaction (also the first single sign-on's).
 */
export function joinByInvitation(context: AppContext, invitation: InvitationRow, userId: string): boolean {
  const now = toIso(context.clock.now());
  if (!markInvitationAccepted(context.db, invitation.id, userId, now)) return false;
  insertMembership(context.db, { workspace_id: invitation.workspace_id, user_id: userId, role: invitation.role, created_at: now });
  const actor = { kind: 'user' as const, id: userId };
  recordAudit(context, { workspaceId: invitation.workspace_id, actor, action: 'invitation.accept', target: invitation.id, metadata: { user_id: userId, role: invitation.role } });
  recordAudit(context, { workspaceId: invitation.workspace_id, actor, action: 'member.add', target: userId, metadata: { role: invitation.role, invitation_id: invitation.id } });
  return true;
}
