// @ts-check
// The sites page. With the admin token: every workspace and its sites, and the forms that create a workspace and a
// site (both need the admin token). With an API key: its workspace, whose sites the API lists only to the admin
// token, so a site is opened by its id. Then each workspace's keys, spend, attribution and audit log, as the
// session's scopes allow.
import { useEffect, useState } from 'preact/hooks';
import { html, onValue } from './html.js';
import { api, hasScope, messageOf, reporting, schemaKey, signedIn } from './api.js';
import { AttributionPanel } from './attribution.js';
import { AuditPanel } from './audit.js';
import { KeysPanel } from './keys.js';
import { SiteSettings } from './site-settings.js';
import { SpendPanel } from './spend.js';
import { WebhooksPanel } from './webhooks.js';
import { updateView } from './view-state.js';
/** @import { SignedInSession, Site, WorkspaceRef } from './types.js' */

/**
 * A workspace and its sites; sites null: the key's workspace, whose sites only the admin token may list.
 * @typedef {{ workspace: WorkspaceRef, sites: Site[] | null }} SiteGroup
 */
/** @typedef {{ status: 'loading' | 'ready' | 'error', groups: SiteGroup[], error?: string, reload: () => void }} SitesState */

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
  const groups = [];
  for (const workspace of workspaces) {
    const answer = await api(`/v1/workspaces/${encodeURIComponent(workspace.slug)}/sites?limit=${listLimit}`, { schema: schemaKey('GET', '/workspaces/{slug}/sites') });
    groups.push({ workspace, sites: answer.sites });
  }
  return groups;
}

/**
 * Loads the session's workspaces and sites: { status, groups, error, reload }.
 * @returns {SitesState}
 */
export function useSites() {
  /** @type {Omit<SitesState, 'reload'>} */
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
  return { ...state, reload: () => setVersion((value) => value + 1) };
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
    updateView({ site: site.id, filters: {} });
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
    if (id.trim()) updateView({ site: id.trim(), filters: {} });
  };
  return html`<form class="props-form" onSubmit=${open} aria-label="Open a site">
    <label>Site id <input name="open-site" value=${id} onInput=${onValue(setId)} required maxlength="64" /></label>
    <button type="submit">Open</button>
  </form>`;
}

/** @param {{ sites: SitesState }} props */
export function SitesPage({ sites }) {
  const adminToken = signedIn().kind === 'admin';
  const listed = sites.groups.flatMap(({ workspace, sites: list }) => (list === null ? [] : [{ workspace, sites: list }]));
  // The site whose settings are open.
  const [selected, setSelected] = useState(/** @type {{ slug: string, id: string } | null} */ (null));
  const selectedGroup = listed.find((group) => group.workspace.slug === selected?.slug);
  const selectedSite = selectedGroup?.sites.find((site) => site.id === selected?.id);
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
          : html`<ul class="site-list">
              ${group.sites.map(
                (site) => html`<li key=${site.id}><a href=${`?site=${encodeURIComponent(site.id)}`} onClick=${(/** @type {Event} */ event) => { event.preventDefault(); updateView({ site: site.id, filters: {} }); }}>${site.name}</a> <code>${site.id}</code>
                  <button type="button" class="link" aria-label=${`Settings of ${site.name}`} onClick=${() => setSelected({ slug: group.workspace.slug, id: site.id })}>Settings</button></li>`,
              )}
            </ul>`}
      </section>`,
    )}
    ${selected && selectedGroup && selectedSite
      ? html`<${SiteSettings} key=${`${selected.slug}/${selected.id}`} workspace=${selectedGroup.workspace} site=${selectedSite} onChanged=${sites.reload} onDeleted=${() => { setSelected(null); sites.reload(); }} />`
      : null}
    ${adminToken && sites.status === 'ready'
      ? html`<div class="forms">
          <${CreateWorkspace} onCreated=${sites.reload} />
          ${listed.length > 0 ? html`<${CreateSite} groups=${listed} onCreated=${sites.reload} />` : null}
        </div>`
      : null}
    ${sites.status === 'ready'
      ? sites.groups.map(
          (group) => html`${hasScope('admin') ? html`<${KeysPanel} key=${`keys-${group.workspace.slug}`} workspace=${group.workspace} />` : null}
            ${hasScope('query:read') ? html`<${SpendPanel} key=${`spend-${group.workspace.slug}`} workspace=${group.workspace} canWrite=${hasScope('admin')} />` : null}
            ${hasScope('query:read') ? html`<${AttributionPanel} key=${`attribution-${group.workspace.slug}`} workspace=${group.workspace} />` : null}
            ${hasScope('admin') ? html`<${WebhooksPanel} key=${`webhooks-${group.workspace.slug}`} workspace=${group.workspace} />` : null}
            ${hasScope('admin') ? html`<${AuditPanel} key=${`audit-${group.workspace.slug}`} workspace=${group.workspace} />` : null}`,
        )
      : null}
  </div>`;
}
