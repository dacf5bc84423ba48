// @ts-check
// The router: sign-in, an invitation, a shared dashboard, the sites overview, one of a site's pages, or a people page
// (account, members; view-state.js keeps which in the URL), inside the header (site switcher, live badge, theme,
// members, account, sign-out) and the site's navigation. The pages' code is in their own files.
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { api, ApiFailure, loadSession, session, signedIn, signOut } from './api.js';
import { AccountPage } from './account.js';
import { AttributionPage } from './attribution-page.js';
import { InvitationPage, invitationTokenOfPage } from './invitation.js';
import { passwordTokenOfPage, SetPasswordPage } from './set-password.js';
import { manageableWorkspaces, MembersPage } from './members.js';
import { Dashboard } from './dashboard.js';
import { EventsPage } from './events-page.js';
import { FunnelsPage } from './funnels-page.js';
import { GoalsPage } from './goals-page.js';
import { JourneysPage } from './journeys-page.js';
import { LiveBadge } from './live-badge.js';
import { RealtimePage } from './realtime-page.js';
import { RetentionPage } from './retention-page.js';
import { SettingsPage } from './settings-page.js';
import { SignIn } from './sign-in.js';
import { SiteNav } from './site-nav.js';
import { SitesPage, useSites } from './sites.js';
import { theme, ThemeButton } from './theme.js';
import { hrefOf, navigate, updateView, view } from './view-state.js';
/** @import { Site, WorkspaceRef } from './types.js' */
/** @import { SitesState } from './sites.js' */
/** @import { View } from './view-state.js' */

/**
 * Whether the session can read the site: known at once when the site list holds it, else asked once (realtime-v2
 * is the cheapest read): 'unknown' is one clear state instead of every panel's own "Not found".
 * @param {string} site
 * @param {boolean | null | undefined} listed true: listed; false: the whole list is read and lacks it; null: the list
 *   is being read; undefined: no list to go by
 */
function useSiteKnown(site, listed) {
  const [known, setKnown] = useState(/** @type {'checking' | 'known' | 'unknown'} */ ('checking'));
  useEffect(() => {
    if (!site || listed === null) {
      setKnown('checking');
      return undefined;
    }
    if (listed !== undefined) {
      setKnown(listed ? 'known' : 'unknown');
      return undefined;
    }
    let current = true;
    setKnown('checking');
    api(`/v1/sites/${encodeURIComponent(site)}/reports/realtime-v2`).then(
      () => current && setKnown('known'),
      (failure) => current && setKnown(failure instanceof ApiFailure && failure.status === 404 ? 'unknown' : 'known'),
    );
    return () => {
      current = false;
    };
  }, [site, listed]);
  return known;
}

/** @param {{ site: string }} props */
function SiteNotFound({ site }) {
  return html`<section class="panel not-found" role="alert">
    <h1>No site “${site}”</h1>
    <p>There is no such site, or this session cannot read it.</p>
    <p><a href=${hrefOf({ site: '', page: 'dashboard', filters: {} })} onClick=${navigate({ site: '', page: 'dashboard', filters: {} })}>Back to the sites</a></p>
  </section>`;
}

/**
 * One of a site's pages.
 * @param {{ state: View, workspace?: WorkspaceRef | null, siteInfo?: Site, sites: SitesState }} props
 */
function SitePage({ state, workspace, siteInfo, sites }) {
  const { site } = state;
  if (state.page === 'realtime') return html`<${RealtimePage} key=${site} site=${site} />`;
  if (state.page === 'goals') return html`<${GoalsPage} key=${site} state=${state} />`;
  if (state.page === 'funnels') return html`<${FunnelsPage} key=${site} state=${state} workspace=${workspace} />`;
  if (state.page === 'journeys') return html`<${JourneysPage} key=${site} state=${state} />`;
  if (state.page === 'retention') return html`<${RetentionPage} key=${site} state=${state} />`;
  if (state.page === 'attribution') return html`<${AttributionPage} key=${site} workspace=${workspace} />`;
  if (state.page === 'events') return html`<${EventsPage} key=${site} state=${state} />`;
  if (state.page === 'settings') {
    const onSiteDeleted = () => {
      sites.forget(site);
      updateView({ site: '', page: 'dashboard', filters: {} });
      sites.reload();
    };
    return html`<${SettingsPage} key=${site} state=${state} workspace=${workspace} siteInfo=${siteInfo} onSitesChanged=${sites.reload} onSiteDeleted=${onSiteDeleted} />`;
  }
  return html`<${Dashboard} key=${site} state=${state} theme=${theme.value} siteInfo=${siteInfo} />`;
}

/**
 * A header link to a people page (?page=account, ?page=members/<slug>), which belongs to no site.
 * @param {{ page: string, current: string, label: string }} props
 */
const PageLink = ({ page, current, label }) =>
  html`<a class="link" href=${hrefOf({ page, site: '', filters: {} })} aria-current=${current === page ? 'page' : undefined} onClick=${navigate({ page, site: '', filters: {} })}>${label}</a>`;

/** @param {{ sites: SitesState, state: View, live: boolean, workspace?: WorkspaceRef | null }} props workspace: the one shown */
function Header({ sites, state, live, workspace }) {
  const all = sites.groups.flatMap((group) => group.sites ?? []);
  const current = signedIn();
  // Members: of the workspace shown when its members may be seen, else of the first such workspace.
  const manageable = manageableWorkspaces(sites.groups.map((group) => group.workspace));
  const membersOf = workspace && manageable.some((item) => item.slug === workspace.slug) ? workspace.slug : manageable[0]?.slug;
  return html`<header class="top">
    <a class="brand" href="/" onClick=${navigate({ site: '', page: 'dashboard', filters: {} })}>Sightline</a>
    ${all.length > 0
      ? html`<label class="site-switch"><span class="visually-hidden">Site</span>
          <select value=${state.site} onChange=${onValue((site) => updateView({ site, page: 'dashboard', filters: {} }))}>
            <option value="">All sites</option>
            ${all.map((site) => html`<option value=${site.id}>${site.name}</option>`)}
          </select></label>`
      : null}
    ${state.site && live ? html`<${LiveBadge} key=${state.site} site=${state.site} />` : null}
    <span class="spacer"></span>
    ${membersOf ? html`<${PageLink} page=${`members/${membersOf}`} current=${state.page} label="Members" />` : null}
    ${current.kind === 'user' ? html`<${PageLink} page="account" current=${state.page} label="Account" />` : null}
    <${ThemeButton} />
    <button type="button" class="link" onClick=${() => signOut()}>Sign out</button>
  </header>`;
}

/** The people page a view names (?page=): account, members/<slug>; undefined for any other. */
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
      <${ThemeButton} />
      <button type="button" class="link" onClick=${() => signOut()}>Sign out</button>
    </header>
    <main><${AccountPage} /></main>
  </div>`;
}

/** The name a share link's site goes by (GET /v1/sites/:siteId/share-info), or its id until it is read. */
function useSharedName(/** @type {string} */ site) {
  const [name, setName] = useState(/** @type {string | null | undefined} */ (undefined));
  useEffect(() => {
    if (!site) return undefined;
    let current = true;
    api(`/v1/sites/${encodeURIComponent(site)}/share-info`).then(
      (answer) => current && setName(/** @type {{ site_name: string }} */ (answer).site_name),
      () => current && setName(null),
    );
    return () => {
      current = false;
    };
  }, [site]);
  return name;
}

function SharedDashboard() {
  const state = view.value;
  const name = useSharedName(state.site);
  if (!state.site || name === null) {
    return html`<main><section class="panel not-found" role="alert"><h1>This link does not open a dashboard</h1><p>It names no site, or it was revoked.</p></section></main>`;
  }
  const dashboard = html`<${Dashboard} key=${state.site} state=${state} theme=${theme.value} />`;
  // Embedded (?embed=): the dashboard alone, compact, in the page that frames it.
  if (state.embed) return html`<div class="shell embedded"><main>${dashboard}</main></div>`;
  return html`<div class="shell">
    <header class="top">
      <span class="brand">Sightline</span>
      <span class="shared-note">Shared dashboard of ${name ?? state.site} (read-only)</span>
      <span class="spacer"></span>
      <${ThemeButton} />
    </header>
    <main>${dashboard}</main>
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
  const listed = current.kind !== 'admin' ? undefined : sites.status === 'ready' ? siteInfo !== undefined : sites.status === 'error' ? undefined : null;
  const known = useSiteKnown(state.site, listed);
  const waiting = known === 'checking';
  const people = peoplePage(state, sites);
  return html`<div class="shell">
    <${Header} sites=${sites} state=${state} live=${known === 'known'} workspace=${workspace} />
    ${state.site && known === 'known' && !people ? html`<${SiteNav} current=${state.page} shared=${false} />` : null}
    <main>
      ${people ?? (!state.site
        ? html`<${SitesPage} sites=${sites} />`
        : waiting
          ? html`<p class="state">Loading…</p>`
          : known === 'unknown'
            ? html`<${SiteNotFound} site=${state.site} />`
            : html`<${SitePage} state=${state} workspace=${workspace} siteInfo=${siteInfo} sites=${sites} />`)}
    </main>
  </div>`;
}

export function App() {
  const [invitation, setInvitation] = useState(invitationTokenOfPage());
  const [passwordToken, setPasswordToken] = useState(passwordTokenOfPage());
  useEffect(() => {
    loadSession();
    const onHash = () => {
      setInvitation(invitationTokenOfPage());
      setPasswordToken(passwordTokenOfPage());
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  if (session.value === undefined) return html`<p class="state">Loading…</p>`;
  if (invitation && session.value?.kind !== 'share') return html`<${InvitationPage} key=${invitation} token=${invitation} />`;
  if (passwordToken) return html`<${SetPasswordPage} key=${passwordToken} token=${passwordToken} />`;
  if (session.value === null) return html`<${SignIn} />`;
  if (session.value.kind === 'share') return html`<${SharedDashboard} />`;
  if (session.value.kind === 'user' && session.value.totp_setup_required) return html`<${SecondFactorFirst} />`;
  return html`<${SignedIn} />`;
}
