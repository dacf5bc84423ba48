// @ts-check
// The shell: sign-in, the header (site switcher, theme, sign-out), the sites page and the dashboard.
import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { ApiFailure, loadSession, messageOf, session, signedIn, signIn, signOut } from './api.js';
import { Dashboard } from './dashboard.js';
import { SitesPage, useSites } from './sites.js';
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

function SignIn() {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await signIn(token.trim());
    } catch (failure) {
      setError(failure instanceof ApiFailure && failure.status === 401 ? 'That token is not valid.' : messageOf(failure));
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="sign-in">
    <form onSubmit=${submit} class="panel">
      <h1>Sightline</h1>
      <label for="token">Admin token or API key</label>
      <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required value=${token} onInput=${onValue(setToken)} />
      <button type="submit" disabled=${busy}>Sign in</button>
      ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
      <p class="hint">The token is exchanged for a session cookie that scripts cannot read; it is not stored in the browser.</p>
    </form>
  </main>`;
}

/** @param {{ sites: SitesState, state: View }} props */
function Header({ sites, state }) {
  const all = sites.groups.flatMap((group) => group.sites ?? []);
  return html`<header class="top">
    <a class="brand" href="/" onClick=${(/** @type {Event} */ event) => { event.preventDefault(); updateView({ site: '', filters: {} }); }}>Sightline</a>
    ${all.length > 0
      ? html`<label class="site-switch"><span class="visually-hidden">Site</span>
          <select value=${state.site} onChange=${onValue((site) => updateView({ site, filters: {} }))}>
            <option value="">All sites</option>
            ${all.map((site) => html`<option value=${site.id}>${site.name}</option>`)}
          </select></label>`
      : null}
    <span class="spacer"></span>
    <button type="button" class="link" onClick=${cycleTheme} title="Theme: auto follows the system">Theme: ${theme.value}</button>
    <button type="button" class="link" onClick=${() => signOut()}>Sign out</button>
  </header>`;
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
    <${Header} sites=${sites} state=${state} />
    <main>${state.site ? html`<${Dashboard} key=${state.site} state=${state} theme=${theme.value} workspace=${workspace} siteInfo=${siteInfo} />` : html`<${SitesPage} sites=${sites} />`}</main>
  </div>`;
}

export function App() {
  useEffect(() => {
    loadSession();
  }, []);
  if (session.value === undefined) return html`<p class="state">Loading…</p>`;
  if (session.value === null) return html`<${SignIn} />`;
  if (session.value.kind === 'share') return html`<${SharedDashboard} />`;
  return html`<${SignedIn} />`;
}
