// @ts-check
// The shell: sign-in, the header (site switcher, theme, account, members, sign-out), the sites page, the dashboard,
// and the people pages (account, members, an invitation; their code is in their own files).
import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { loadSession, session, signedIn, signOut } from './api.js';
import { Dashboard } from './dashboard.js';
import { SitesPage, useSites } from './sites.js';
import { AccountPage } from './account.js';
import { InvitationPage, invitationTokenOfPage } from './invitation.js';
import { manageableWorkspaces, MembersPage } from './members.js';
import { SignIn } from './sign-in.js';
import { updateView, view } from './view-state.js';
/** @import { SitesState } from './sites.js' */
/** @import { View } from './view-state.js' */

const themes = ['auto', 'light', 'dark'];
const remembered = localStorage.getItem('sightline-theme') ?? '';
const theme = signal(themes.includes(remembered) ? remembered : 'auto');

/** @param {string} choice */
function applyTheme(choice) {
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}
applyTheme(theme.value);

function cycleTheme() {
  const next = themes[(themes.indexOf(theme.value) + 1) % themes.length] ?? 'auto';
  theme.value = next;
  localStorage.setItem('sightline-theme', next);
  applyTheme(next);
}

/**
 * A header link to a page of the view (?page=…).
 * @param {{ page: string, current: string, label: string }} props
 */
const PageLink = ({ page, current, label }) =>
  html`<a class="link" href=${`?page=${encodeURIComponent(page)}`} aria-current=${current === page ? 'page' : undefined} onClick=${(/** @type {Event} */ event) => { event.preventDefault(); updateView({ page, site: '', filters: {} }); }}>${label}</a>`;

/** @param {{ sites: SitesState, state: View, workspace?: { slug: string } | null }} props workspace: the one shown */
function Header({ sites, state, workspace }) {
  const all = sites.groups.flatMap((group) => group.sites ?? []);
  const current = signedIn();
  // Members: of the workspace shown when its members may be seen, else of the first such workspace.
  const manageable = manageableWorkspaces(sites.groups.map((group) => group.workspace));
  const membersOf = workspace && manageable.some((item) => item.slug === workspace.slug) ? workspace.slug : manageable[0]?.slug;
  return html`<header class="top">
    <a class="brand" href="/" onClick=${(/** @type {Event} */ event) => { event.preventDefault(); updateView({ site: '', filters: {}, page: '' }); }}>Sightline</a>
    ${all.length > 0
      ? html`<label class="site-switch"><span class="visually-hidden">Site</span>
          <select value=${state.site} onChange=${onValue((site) => updateView({ site, filters: {}, page: '' }))}>
            <option value="">All sites</option>
            ${all.map((site) => html`<option value=${site.id}>${site.name}</option>`)}
          </select></label>`
      : null}
    <span class="spacer"></span>
    ${membersOf ? html`<${PageLink} page=${`members/${membersOf}`} current=${state.page} label="Members" />` : null}
    ${current.kind === 'user' ? html`<${PageLink} page="account" current=${state.page} label="Account" />` : null}
    <button type="button" class="link" onClick=${cycleTheme} title="Theme: auto follows the system">Theme: ${theme.value}</button>
    <button type="button" class="link" onClick=${() => signOut()}>Sign out</button>
  </header>`;
}

/** The page a view names (?page=): account, members/<slug>; undefined: the sites page or a dashboard. */
function peoplePage(/** @type {View} */ state, /** @type {SitesState} */ sites) {
  if (state.page === 'account' && signedIn().kind === 'user') return html`<${AccountPage} />`;
  if (state.page.startsWith('members/')) {
    if (sites.status === 'loading') return html`<p class="state">Loading…</p>`;
    return html`<${MembersPage} key=${state.page} slug=${state.page.slice('members/'.length)} workspaces=${sites.groups.map((group) => group.workspace)} />`;
  }
  return undefined;
}

/** A person whose workspace requires a second factor they lack: the account's second factor alone, until set up. */
function SecondFactorFirst() {
  return html`<div class="shell">
    <header class="top">
      <span class="brand">Sightline</span>
      <span class="spacer"></span>
      <button type="button" class="link" onClick=${cycleTheme} title="Theme: auto follows the system">Theme: ${theme.value}</button>
      <button type="button" class="link" onClick=${() => signOut()}>Sign out</button>
    </header>
    <main><${AccountPage} /></main>
  </div>`;
}

function SharedDashboard() {
  const state = view.value;
  return html`<div class="shell">
    <header class="top">
      <span class="brand">Sightline</span>
      <span class="shared-note">Shared dashboard of ${state.site} (read-only)</span>
      <span class="spacer"></span>
      <button type="button" class="link" onClick=${cycleTheme} title="Theme: auto follows the system">Theme: ${theme.value}</button>
    </header>
    <main>${state.site ? html`<${Dashboard} key=${state.site} state=${state} theme=${theme.value} />` : html`<p class="state error" role="alert">This link names no site.</p>`}</main>
  </div>`;
}

function SignedIn() {
  const sites = useSites();
  const state = view.value;
  // An API key sees its own workspace only; the admin token, the workspace listing the site.
  const group = sites.groups.find((item) => item.sites?.some((site) => site.id === state.site));
  const current = signedIn();
  const workspace = current.kind === 'api_key' ? current.workspace : group?.workspace;
  const siteInfo = group?.sites?.find((site) => site.id === state.site);
  return html`<div class="shell">
    <${Header} sites=${sites} state=${state} workspace=${workspace} />
    <main>${peoplePage(state, sites) ?? (state.site ? html`<${Dashboard} key=${state.site} state=${state} theme=${theme.value} workspace=${workspace} siteInfo=${siteInfo} />` : html`<${SitesPage} sites=${sites} />`)}</main>
  </div>`;
}

export function App() {
  const [invitation, setInvitation] = useState(invitationTokenOfPage());
  useEffect(() => {
    loadSession();
    const onHash = () => setInvitation(invitationTokenOfPage());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  if (session.value === undefined) return html`<p class="state">Loading…</p>`;
  if (invitation && session.value?.kind !== 'share') return html`<${InvitationPage} key=${invitation} token=${invitation} />`;
  if (session.value === null) return html`<${SignIn} />`;
  if (session.value.kind === 'share') return html`<${SharedDashboard} />`;
  if (session.value.kind === 'user' && session.value.totp_setup_required) return html`<${SecondFactorFirst} />`;
  return html`<${SignedIn} />`;
}
