// @ts-check
// The members page of a workspace (?page=members/<slug>), for its owners and admins (and the admin token,
// operators, an admin key): the members and their roles (changed and removed by owners; the last owner stays), an
// existing account added by e-mail, invitations (the one-time link shown once; listed, revoked) and whether the
// workspace requires two-factor authentication (owners).
import { useEffect, useState } from 'preact/hooks';
import { html, onChecked, onValue } from './html.js';
import { api, ApiFailure, messageOf, reporting, roleIn, schemaKey } from './api.js';
import { SecretOnce } from './secret-once.js';
import { useList } from './use-answer.js';
import { updateView } from './view-state.js';
/** @import { Invitation, Member, Role, WorkspaceRef } from './types.js' */

const roles = /** @type {Role[]} */ (['owner', 'admin', 'analyst', 'viewer']);
const roleLabels = { owner: 'Owner', admin: 'Admin', analyst: 'Analyst', viewer: 'Viewer' };

/** @param {string} slug */
const workspacePath = (slug) => `/v1/workspaces/${encodeURIComponent(slug)}`;

/**
 * A refusal in the page's words: the last owner, somebody already a member, an invitation of an owner by an admin.
 * @param {unknown} failure
 */
function problemOf(failure) {
  if (failure instanceof ApiFailure && failure.code === 'last_owner') return 'A workspace keeps at least one owner: make another member owner first.';
  if (failure instanceof ApiFailure && failure.code === 'already_member') return 'That person is already a member of this workspace.';
  return messageOf(failure);
}

/** @param {{ name: string, value: Role, onChange: (role: Role) => void, allowed: Role[], label: string }} props */
const RoleSelect = ({ name, value, onChange, allowed, label }) =>
  html`<select name=${name} aria-label=${label} value=${value} onChange=${onValue((role) => onChange(/** @type {Role} */ (role)))}>
    ${allowed.map((role) => html`<option value=${role}>${roleLabels[role]}</option>`)}
  </select>`;

/** @param {{ slug: string, owner: boolean }} props owner: may change roles and remove (owners alone) */
function MembersPanel({ slug, owner }) {
  const members = useList(`${workspacePath(slug)}/members`, schemaKey('GET', '/workspaces/{slug}/members'), (answer) => answer.members);
  const [error, setError] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState(/** @type {Role} */ ('viewer'));
  /**
   * @param {() => Promise<unknown>} action
   * @returns {(event?: Event) => Promise<void>}
   */
  const run = (action) => async (event) => {
    event?.preventDefault();
    setError('');
    try {
      await action();
    } catch (failure) {
      setError(problemOf(failure));
    }
    await members.load();
  };
  /** @param {Member} member @param {Role} next */
  const changeRole = (member, next) =>
    run(() => api(`${workspacePath(slug)}/members/${encodeURIComponent(member.user_id)}`, { method: 'PATCH', body: { role: next }, schema: schemaKey('PATCH', '/workspaces/{slug}/members/{userId}') }))();
  /** @param {Member} member */
  const remove = (member) => run(() => (confirm(`Remove ${member.email} from this workspace?`) ? api(`${workspacePath(slug)}/members/${encodeURIComponent(member.user_id)}`, { method: 'DELETE' }) : Promise.resolve()));
  const add = run(async () => {
    await api(`${workspacePath(slug)}/members`, { method: 'POST', body: { email: email.trim(), role }, schema: schemaKey('POST', '/workspaces/{slug}/members') });
    setEmail('');
  });
  return html`<section class="panel members"><header class="panel-head"><h2>Members</h2></header>
    ${members.status === 'loading' && members.rows.length === 0 ? html`<p class="state">Loading…</p>` : null}
    ${members.status === 'error' ? html`<p class="state error" role="alert">${members.error}</p>` : null}
    ${members.rows.length > 0
      ? html`<div class="scroll"><table class="member-list">
          <thead><tr><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
          <tbody>${members.rows.map(
            (member) => html`<tr key=${member.user_id}>
              <th scope="row">${member.name || '–'}${member.disabled_at ? html` <span class="badge">disabled</span>` : null}</th>
              <td>${member.email}</td>
              <td>${owner
                ? html`<${RoleSelect} name=${`role-${member.email}`} label=${`Role of ${member.email}`} value=${member.role} allowed=${roles} onChange=${(/** @type {Role} */ next) => changeRole(member, next)} />`
                : roleLabels[member.role]}</td>
              <td>${owner ? html`<button type="button" class="link danger" aria-label=${`Remove ${member.email}`} onClick=${remove(member)}>Remove</button>` : null}</td>
            </tr>`,
          )}</tbody>
        </table></div>`
      : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    ${owner
      ? html`<form class="props-form" onSubmit=${add} aria-label="Add an existing account">
          <label>E-mail of an account <input name="member-email" type="email" required maxlength="254" value=${email} onInput=${onValue(setEmail)} /></label>
          <label>Role <${RoleSelect} name="member-role" label="Role" value=${role} allowed=${roles} onChange=${setRole} /></label>
          <button type="submit">Add member</button>
        </form>`
      : null}
  </section>`;
}

/** @param {Invitation} invitation */
const invitationStatus = (invitation) => (invitation.status === 'pending' ? `pending until ${new Date(invitation.expires_at).toLocaleDateString()}` : invitation.status);

/** @param {{ slug: string, owner: boolean }} props owner: may invite an owner */
function InvitationsPanel({ slug, owner }) {
  const invitations = useList(`${workspacePath(slug)}/invitations`, schemaKey('GET', '/workspaces/{slug}/invitations'), (answer) => answer.invitations);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState(/** @type {Role} */ ('viewer'));
  const [created, setCreated] = useState(/** @type {{ email: string, url: string } | null} */ (null));
  const [error, setError] = useState('');
  const invite = reporting(setError, async () => {
    setCreated(null);
    try {
      const answer = await api(`${workspacePath(slug)}/invitations`, { method: 'POST', body: { email: email.trim(), role }, schema: schemaKey('POST', '/workspaces/{slug}/invitations') });
      setCreated({ email: email.trim(), url: answer.url });
      setEmail('');
    } catch (failure) {
      throw new Error(problemOf(failure));
    }
    await invitations.load();
  });
  /** @param {Invitation} invitation */
  const revoke = (invitation) =>
    reporting(setError, async () => {
      await api(`${workspacePath(slug)}/invitations/${encodeURIComponent(invitation.id)}`, { method: 'DELETE' });
      await invitations.load();
    });
  return html`<section class="panel invitations"><header class="panel-head"><h2>Invitations</h2></header>
    <form class="props-form" onSubmit=${invite} aria-label="Invite someone">
      <label>E-mail <input name="invite-email" type="email" required maxlength="254" value=${email} onInput=${onValue(setEmail)} /></label>
      <label>Role <${RoleSelect} name="invite-role" label="Role" value=${role} allowed=${owner ? roles : roles.filter((item) => item !== 'owner')} onChange=${setRole} /></label>
      <button type="submit">Invite</button>
    </form>
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
    ${created
      ? html`<${SecretOnce} key=${created.url} name="invitation-url" value=${created.url}
          warning=${`Send this link to ${created.email}: it is shown only now, works once and for 7 days.`} />`
      : null}
    ${invitations.status === 'error' ? html`<p class="state error" role="alert">${invitations.error}</p>` : null}
    ${invitations.rows.length > 0
      ? html`<div class="scroll"><table class="invitation-list">
          <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
          <tbody>${invitations.rows.map(
            (invitation) => html`<tr key=${invitation.id}>
              <th scope="row">${invitation.email}</th>
              <td>${roleLabels[invitation.role]}</td>
              <td>${invitationStatus(invitation)}</td>
              <td>${invitation.status === 'pending' ? html`<button type="button" class="link danger" aria-label=${`Revoke the invitation of ${invitation.email}`} onClick=${revoke(invitation)}>Revoke</button>` : null}</td>
            </tr>`,
          )}</tbody>
        </table></div>`
      : invitations.status === 'ready' ? html`<p class="state">No invitations yet.</p>` : null}
  </section>`;
}

/** Whether the workspace requires a second factor of its members (owners read and set it). @param {{ slug: string }} props */
function TwoFactorRule({ slug }) {
  const [required, setRequired] = useState(/** @type {boolean | undefined} */ (undefined));
  const [error, setError] = useState('');
  useEffect(() => {
    api(workspacePath(slug), { schema: schemaKey('GET', '/workspaces/{slug}') }).then((workspace) => setRequired(workspace.require_2fa), (failure) => setError(messageOf(failure)));
  }, [slug]);
  /** @param {boolean} next */
  const change = (next) =>
    reporting(setError, async () => {
      const workspace = await api(workspacePath(slug), { method: 'PATCH', body: { require_2fa: next }, schema: schemaKey('PATCH', '/workspaces/{slug}') });
      setRequired(workspace.require_2fa);
    })();
  return html`<section class="panel"><header class="panel-head"><h2>Security</h2></header>
    ${required === undefined && !error ? html`<p class="state">Loading…</p>` : null}
    ${required !== undefined
      ? html`<label class="check"><input type="checkbox" name="require-2fa" checked=${required} onChange=${onChecked(change)} /> Require two-factor authentication</label>
          <p class="hint">Members without it are asked to set it up at their next sign-in and reach nothing else until they do (you too).</p>`
      : null}
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </section>`;
}

/**
 * The workspaces whose members the session may see: owners' and admins' (every listed one for the admin token).
 * @param {WorkspaceRef[]} workspaces
 */
export function manageableWorkspaces(workspaces) {
  return workspaces.filter((workspace) => {
    const role = roleIn(workspace.slug);
    return role === 'owner' || role === 'admin';
  });
}

/** @param {{ slug: string, workspaces: WorkspaceRef[] }} props workspaces: the session's (the picker's choices) */
export function MembersPage({ slug, workspaces }) {
  const choices = manageableWorkspaces(workspaces);
  const workspace = choices.find((item) => item.slug === slug);
  const owner = roleIn(slug) === 'owner';
  return html`<div class="members-page">
    <h1>Members${workspace ? ` of ${workspace.name}` : ''}</h1>
    ${choices.length > 1
      ? html`<label class="site-switch">Workspace <select name="members-workspace" value=${slug} onChange=${onValue((next) => updateView({ page: `members/${next}`, site: '' }))}>
          ${choices.map((item) => html`<option value=${item.slug}>${item.name}</option>`)}
        </select></label>`
      : null}
    ${workspace
      ? html`<${MembersPanel} key=${`members-${slug}`} slug=${slug} owner=${owner} />
          <${InvitationsPanel} key=${`invitations-${slug}`} slug=${slug} owner=${owner} />
          ${owner ? html`<${TwoFactorRule} key=${`rule-${slug}`} slug=${slug} />` : null}`
      : html`<p class="state error" role="alert">Not found: no workspace of yours is named ${slug}.</p>`}
  </div>`;
}
