// Invitations over HTTP (CONTRACT 9, docs/people.md "Invitations"): made, listed and revoked under
// /v1/workspaces/:slug/invitations (flat envelope, owners and admins: the admin scope), accepted at
// /v1/invitations/accept (structured envelope, no credential: the token is one).
import { type H3, type H3Event } from 'h3';
import * as v from 'valibot';
import { resolveWorkspace } from '../access/resolve-access.ts';
import { actorOf } from '../audit/record-audit.ts';
import type { AppContext } from '../context.ts';
import { readJsonBody } from '../http/body.ts';
import { jsonBody, namedInPath, needsCredential, refusals, throttledCredential } from '../http/refusals.ts';
import { json, noContent } from '../http/respond.ts';
import { addRoute } from '../http/routes.ts';
import { parseBody } from '../http/validate.ts';
import { AcceptInvitationBody, acceptInvitation, CreateInvitationBody, createInvitation, invitationMail, listInvitations, revokeInvitation } from './invitations.ts';
import { normaliseEmail } from './accounts.ts';
import type { Mailer } from '../mail/mailer.ts';
import { pathParam } from '../http/path-params.ts';
import { publicBaseOf } from './public-base.ts';

const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const RoleAnswer = v.picklist(['owner', 'admin', 'analyst', 'viewer']);
const InvitationAnswer = v.strictObject({
  id: v.string(),
  workspace: v.string(),
  email: v.string(),
  role: RoleAnswer,
  status: v.picklist(['pending', 'accepted', 'revoked', 'expired']),
  created_at: IsoTime,
  expires_at: IsoTime,
  accepted_at: v.nullable(IsoTime),
  revoked_at: v.nullable(IsoTime),
});
const AcceptedAnswer = v.strictObject({
  user: v.strictObject({
    id: v.string(),
    email: v.string(),
    name: v.string(),
    created_at: IsoTime,
    last_login_at: v.nullable(IsoTime),
    totp_enabled: v.boolean(),
    sso: v.boolean(),
    disabled_at: v.nullable(IsoTime),
    operator: v.boolean(),
  }),
  workspace: v.strictObject({ id: v.string(), slug: v.string(), name: v.string() }),
  role: RoleAnswer,
});

const noStore = { 'cache-control': 'no-store' };


export function mountInvitations(app: H3, context: AppContext, mailer?: Pick<Mailer, 'configured' | 'sendDirect'>): void {
  addRoute(app, {
    method: 'POST',
    path: '/workspaces/:slug/invitations',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath, jsonBody, { 409: ['already_member'] }),
    summary: 'Invite an e-mail with a role (admin scope; only an owner may invite an owner): the link, with its one-use token, is shown once and works for 7 days',
    body: CreateInvitationBody,
    status: 201,
    answer: v.strictObject({ id: v.string(), url: v.string(), expires_at: IsoTime }),
    handler: async (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      const input = parseBody(CreateInvitationBody, await readJsonBody(event));
      const invitation = createInvitation(context, caller, actorOf(caller), workspace, input, publicBaseOf(event, context));
      // Also mailed when SMTP is configured, in the background: the answer never waits for (or depends on) the mail.
      if (mailer?.configured) void mailer.sendDirect({ to: normaliseEmail(input.email), ...invitationMail(workspace, input.role, invitation) });
      return json(invitation, 201);
    },
  });
  addRoute(app, {
    method: 'GET',
    path: '/workspaces/:slug/invitations',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'The workspace\'s invitations, newest first, with their status (never their tokens; admin scope)',
    answer: v.strictObject({ invitations: v.array(InvitationAnswer) }),
    handler: (event) => ({ invitations: listInvitations(context, resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' }).workspace) }),
  });
  addRoute(app, {
    method: 'DELETE',
    path: '/workspaces/:slug/invitations/:id',
    versionedOnly: true,
    headers: noStore,
    refusals: refusals(needsCredential, namedInPath),
    summary: 'Revoke a pending invitation (a used, revoked or unknown one: 404)',
    status: 204,
    handler: (event) => {
      const { caller, workspace } = resolveWorkspace(event, context, pathParam(event, 'slug'), { scope: 'admin' });
      revokeInvitation(context, actorOf(caller), workspace, pathParam(event, 'id'));
      return noContent();
    },
  });
  addRoute(app, {
    method: 'POST',
    path: '/invitations/accept',
    versionedOnly: true,
    auth: 'none',
    headers: noStore,
    refusals: refusals(namedInPath, jsonBody, throttledCredential, {
      401: ['sign_in_required'],
      403: ['wrong_account'],
      409: ['already_member', 'email_taken'],
    }),
    summary: 'Accept an invitation: creates the account (password required) or, signed in as the invited e-mail\'s account, adds the membership',
    body: AcceptInvitationBody,
    answer: AcceptedAnswer,
    handler: async (event) => {
      const input = parseBody(AcceptInvitationBody, await readJsonBody(event, { limitBytes: 8192, accept: ['application/json'] }));
      return acceptInvitation(event, context, input);
    },
  });
}
