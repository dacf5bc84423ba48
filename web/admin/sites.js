// @ts-check
// The sites overview. With the admin token: every workspace and its sites, each with its visitors today and their
// hours as a sparkline, and the forms that create a workspace and a site (both need the admin token). With an API
// key: its workspace, whose sites the API lists only to the admin token, so a site is opened by its id. A site's
// settings, keys, webhooks, spend and audit log are on its own Settings page (settings-page.js).
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { api, messageOf, reporting, schemaKey, signedIn } from './api.js';
import { SparkBars } from './spark-bars.js';
import { formatNumber } from './table.js';
import { useAnswer } from './use-answer.js';
import { hrefOf, isoDay, navigate, updateView } from './view-state.js';
/** @import { SignedInSession, Site, WorkspaceRef } from './types.js' */

/**
 * A workspace and its sites; sites null: the key's workspace, whose sites only the admin token may list.
 * @typedef {{ workspace: WorkspaceRef, sites: Site[] | null }} SiteGroup
 */
/**
 * forget(id): a deleted site leaves the list at once (before it is read again), so nothing asks for its reports.
 * @typedef {{ status: 'loading' | 'ready' | 'error', groups: SiteGroup[], error?: string, reload: () => void, forget: (id: string) => void }} SitesState
 */

const listLimit = 100;

/**
 * @param {SignedInSession} current
 * @returns {Promise<SiteGroup[]>}
 */
async function loadSites(current) {
  // sites null: the key's workspace, whose sites only the admin token may list.
  if (current.kind === 'api_key') return current.workspace ? [{ workspace: current.workspace, sites: null }] : [];
  // A person: their workspaces (an operator's: every one); an owner lists its sites, the other roles open one by id.
  if (current.kind === 'user' && !current.user.operator) {
    return Promise.all(current.workspaces.map(async (workspace) => ({
      workspace,
      sites: workspace.role === 'owner' ? (await api(`/v1/workspaces/${encodeURIComponent(workspace.slug)}/sites?limit=${listLimit}`, { schema: schemaKey('GET', '/workspaces/{slug}/sites') })).sites : null,
    })));
  }
  const workspaces = (await api(`/v1/workspaces?limit=${listLimit}`, { schema: schemaKey('GET', '/workspaces') })).workspaces;
  // Every workspace's sites at once: the requests go out together.
  return Promise.all(
    workspaces.map(async (workspace) => {
      const answer = await api(`/v1/workspaces/${encodeURIComponent(workspace.slug)}/sites?limit=${listLimit}`, { schema: schemaKey('GET', '/workspaces/{slug}/sites') });
      return { workspace, sites: answer.sites };
    }),
  );
}

/**
 * Loads the session's workspaces and sites: { status, groups, error, reload }.
 * @returns {SitesState}
 */
export function useSites() {
  /** @type {Omit<SitesState, 'reload' | 'forget'>} */
  const initial = { status: 'loading', groups: [] };
  const [state, setState] = useState(initial);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let current = true;
    loadSites(signedIn()).then(
      (groups) => current && setState({ status: 'ready', groups }),
      (error) => current && setState({ status: 'error', groups: [], error: messageOf(error) }),
    );
    return () => {
      current = false;
    };
  }, [version]);
  const forget = (/** @type {string} */ id) =>
    setState((current) => ({ ...current, groups: current.groups.map((group) => ({ ...group, sites: group.sites?.filter((site) => site.id !== id) ?? null })) }));
  return { ...state, reload: () => setVersion((value) => value + 1), forget };
}

/** @param {{ label: string, value: string, onInput: (value: string) => void, name: string }} props */
function Field({ label, value, onInput, ...rest }) {
  return html`<label>${label} <input value=${value} onInput=${onValue(onInput)} required ...${rest} /></label>`;
}

/** @param {{ onCreated: () => void }} props */
function CreateWorkspace({ onCreated }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [error, setError] = useState('');
  const submit = reporting(setError, async () => {
    await api('/v1/workspaces', { method: 'POST', body: { name, slug }, schema: schemaKey('POST', '/workspaces') });
    setName('');
    setSlug('');
    onCreated();
  });
  return html`<form class="inline-form" onSubmit=${submit} aria-label="Create a workspace">
    <h3>New workspace</h3>
    <${Field} label="Name" value=${name} onInput=${setName} name="workspace-name" />
    <${Field} label="Slug" value=${slug} onInput=${setSlug} name="workspace-slug" />
    <button type="submit">Create workspace</button>
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </form>`;
}

/** @param {{ groups: { workspace: WorkspaceRef }[], onCreated: () => void }} props */
function CreateSite({ groups, onCreated }) {
  const [workspace, setWorkspace] = useState(groups[0]?.workspace.slug ?? '');
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const submit = reporting(setError, async () => {
    const site = await api(`/v1/workspaces/${encodeURIComponent(workspace)}/sites`, { method: 'POST', body: { id, name }, schema: schemaKey('POST', '/workspaces/{slug}/sites') });
    onCreated();
    updateView({ site: site.id, page: 'dashboard', filters: {} });
  });
  return html`<form class="inline-form" onSubmit=${submit} aria-label="Create a site">
    <h3>New site</h3>
    <label>Workspace <select value=${workspace} onChange=${onValue(setWorkspace)} name="site-workspace">
      ${groups.map((group) => html`<option value=${group.workspace.slug}>${group.workspace.name}</option>`)}
    </select></label>
    <${Field} label="Site id" value=${id} onInput=${setId} name="site-id" />
    <${Field} label="Name" value=${name} onInput=${setName} name="site-name" />
    <button type="submit">Create site</button>
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </form>`;
}

/** @param {{ workspace: WorkspaceRef, onRenamed: () => void }} props */
function RenameWorkspace({ workspace, onRenamed }) {
  const [name, setName] = useState(/** @type {string | null} */ (null));
  const [error, setError] = useState('');
  const submit = reporting(setError, async () => {
    await api(`/v1/workspaces/${encodeURIComponent(workspace.slug)}`, { method: 'PATCH', body: { name }, schema: schemaKey('PATCH', '/workspaces/{slug}') });
    setName(null);
    onRenamed();
  });
  if (name === null) return html`<button type="button" class="link" onClick=${() => setName(workspace.name)}>Rename</button>`;
  return html`<form class="props-form" onSubmit=${submit} aria-label="Rename the workspace" novalidate>
    <label>Name <input name="workspace-rename" value=${name} onInput=${onValue(setName)} /></label>
    <button type="submit">Save name</button>
    <button type="button" class="link" onClick=${() => setName(null)}>Cancel</button>
    ${error ? html`<p class="state error" role="alert">${error}</p>` : null}
  </form>`;
}

function OpenSite() {
  const [id, setId] = useState('');
  /** @param {Event} event */
  const open = (event) => {
    event.preventDefault();
    if (id.trim()) updateView({ site: id.trim(), page: 'dashboard', filters: {} });
  };
  return html`<form class="props-form" onSubmit=${open} aria-label="Open a site">
    <label>Site id <input name="open-site" value=${id} onInput=${onValue(setId)} required maxlength="64" /></label>
    <button type="submit">Open</button>
  </form>`;
}

/** @param {{ site: Site }} props a site's card: today's visitors and their hours */
function SiteCard({ site }) {
  const today = isoDay(Date.now());
  const answer = useAnswer(`/v1/sites/${encodeURIComponent(site.id)}/reports/summary-v2?from=${today}&to=${today}&interval=hour`, schemaKey('GET', '/sites/{siteId}/reports/summary-v2'));
  const open = { site: site.id, page: 'dashboard', filters: {} };
  return html`<li class="site-card" key=${site.id}>
    <a class="site-name" href=${hrefOf(open)} onClick=${navigate(open)}>${site.name}</a>
    <code>${site.id}</code>
    <span class="site-today">
      ${answer.status === 'ready'
        ? html`<strong>${formatNumber(answer.data.data.visitors)}</strong> ${answer.data.data.visitors === 1 ? 'visitor' : 'visitors'} today
            <${SparkBars} values=${answer.data.data.series.map((point) => point.visitors)} label=${`Visitors of ${site.name} in each hour of today (UTC)`} />`
        : answer.status === 'error'
          ? html`<span class="state error">${answer.error}</span>`
          : html`<span class="state">…</span>`}
    </span>
    <a class="link" href=${hrefOf({ site: site.id, page: 'settings', tab: 'site' })} onClick=${navigate({ site: site.id, page: 'settings', tab: 'site', filters: {} })} aria-label=${`Settings of ${site.name}`}>Settings</a>
  </li>`;
}

/** @param {{ sites: SitesState }} props */
export function SitesPage({ sites }) {
  const adminToken = signedIn().kind === 'admin';
  const listed = sites.groups.flatMap(({ workspace, sites: list }) => (list === null ? [] : [{ workspace, sites: list }]));
  return html`<div class="sites-page">
    <h1>Sites</h1>
    ${sites.status === 'loading' ? html`<p class="state">Loading…</p>` : null}
    ${sites.status === 'error' ? html`<p class="state error" role="alert">${sites.error}</p>` : null}
    ${adminToken && sites.status === 'ready' && listed.every((group) => group.sites.length === 0) ? html`<p class="state">No sites yet: create one below.</p>` : null}
    ${sites.groups.map(
      (group) => html`<section class="panel workspace" key=${group.workspace.slug}>
        <header class="panel-head"><h2>${group.workspace.name}</h2>${adminToken ? html`<${RenameWorkspace} workspace=${group.workspace} onRenamed=${sites.reload} />` : null}</header>
        ${group.sites === null
          ? html`<${OpenSite} />`
          : group.sites.length === 0
            ? html`<p class="hint">No site yet. A site's Settings hold the workspace's keys, webhooks, spend and audit log.</p>`
            : html`<ul class="site-list">${group.sites.map((site) => html`<${SiteCard} key=${site.id} site=${site} />`)}</ul>`}
      </section>`,
    )}
    ${adminToken && sites.status === 'ready'
      ? html`<div class="forms">
          <${CreateWorkspace} onCreated=${sites.reload} />
          ${listed.length > 0 ? html`<${CreateSite} groups=${listed} onCreated=${sites.reload} />` : null}
        </div>`
      : null}
  </div>`;
}
